/* SPDX-License-Identifier: MIT */
/* One library file of tests/e2e/suites/hold.sh (a driver companion, a bundled
 * library): its markers let the program tell which file it got. */
int hold_marker(void);
int bundle_marker(void);
int hold_marker(void) { return 1; }
int bundle_marker(void) { return 1; }
