// A C++ program with the sections C++ brings (.gcc_except_table, .init_array,
// .tbss, weak/COMDAT template code, typeinfo): the strip matrix patches it
// and rewrites it like the C programs.  Prints "cxx ok N".
#include <iostream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace {
thread_local int tls_marker = 7;

struct Registry {
	std::map<std::string, int> m;
	Registry() { m["init"] = 1; }	// a static constructor
} registry;

template <typename T> T sum(const std::vector<T> &v)
{
	T s{};
	for (const T &x : v)
		s += x;
	return s;
}
}

int main(int argc, char **)
{
	try {
		if (argc > 5)
			throw std::runtime_error("too many");
		throw std::logic_error("caught");
	} catch (const std::exception &e) {
		std::vector<int> v{ 1, 2, 3, tls_marker };
		std::cout << "cxx ok " << sum(v) + registry.m["init"] << " " << e.what() << std::endl;
	}
	return 0;
}
