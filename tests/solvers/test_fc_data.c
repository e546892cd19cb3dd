/* Acceptance of the exact-cone NSGS on the frictional-contact files of shared/data/fc (data
 * README §5.2): natural-map error ≤ 1e-8 on every problem Siconos' NSGS solves, and on at least
 * two of the three where it stalls (OneObject, BoxesStack1, spheres-in-a-box). Prints the table
 * of every file with its error, sweeps and time. The 7002-contact granular flow runs in
 * test_fc_data_large.c (seconds in Release, too long under the sanitizers). */
#include "solvers/test_fc_common.h"

/* Siconos NSGS reaches 1e-8 on these (README §5.2 anchors). */
static const char *solved_by_siconos[] = {
    "FrictionContact3D_1c.dat",
    "FC3D_Example1.dat",
    "FC3D_Example1_SBM.dat",
    "Rover11035.dat",
    "Rover4396.dat",
    "Rover1039.dat",
    "Rover1040.dat",
    "Confeti-ex13-4contact-Fc3D-SBM.dat",
    "NESpheres_10_1.dat",
    "Confeti-ex03-Fc3D-SBM.dat",
    "Capsules-i101-404.dat",
    "Capsules-i100-1090.dat",
    "KaplasTower-i1061-4.hdf5.dat",
    "Capsules-i125-1213.hdf5",
    "LMGC_100_PR_PerioBox-i00361-60-03000.hdf5",
    "Box_Stacks-i0122-82-5.hdf5",
    "CubeH8.hdf5",
    "FC2D_SliderCrankLagrangian00000.dat",
    "FrictionContactProblem00374.dat",
    "FrictionContactProblem00031.dat",
    "FrictionContactProblem00237.dat",
    "fc2d_granularflowonwall_00667_00000.dat", /* ‖q‖ ≈ 4e-18: the absolute error counts */
};

/* Siconos NSGS stalls on these; at least two must reach 1e-8. */
static const char *stalled_for_siconos[] = {
    "OneObject-i100000-316.hdf5.dat",
    "BoxesStack1-i100000-32.hdf5.dat",
    "spheres-in-a-box-98-i10000-256-10.hdf5",
};

int main(void) {
  fc_print_header();
  for (size_t k = 0; k < sizeof solved_by_siconos / sizeof solved_by_siconos[0]; k++) {
    int ok = fc_solve_file(solved_by_siconos[k]);
    if (ok != 1) fprintf(stderr, "%s: not solved to 1e-8\n", solved_by_siconos[k]);
    CHECK(ok == 1);
  }
  int stalled_solved = 0;
  for (size_t k = 0; k < sizeof stalled_for_siconos / sizeof stalled_for_siconos[0]; k++) {
    /* spheres-in-a-box does not converge (≈1e-6 after 20000 sweeps): a shorter run keeps the
     * test fast and still prints where it stands */
    int spheres = strncmp(stalled_for_siconos[k], "spheres", 7) == 0;
    stalled_solved += fc_solve_file_limited(stalled_for_siconos[k], spheres ? 4000 : FC_MAX_SWEEPS) == 1;
  }
  printf("\nsolved %d of the 3 problems where Siconos NSGS stalls\n", stalled_solved);
  CHECK(stalled_solved >= 2);
  return clt_test_finish();
}
