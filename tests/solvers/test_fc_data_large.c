/* The largest frictional-contact file of shared/data/fc: the 2D granular flow with 7002 contacts
 * (data README §5.2; Siconos NSGS stops at 1.7e-8 after 10000 sweeps). ~2 s in Release; label it
 * out of the sanitizer run. Must reach the natural-map error 1e-8. */
#include "solvers/test_fc_common.h"

int main(void) {
  fc_print_header();
  CHECK(fc_solve_file("fc2d_granularflowonwall_07002_00801.dat") == 1);
  return clt_test_finish();
}
