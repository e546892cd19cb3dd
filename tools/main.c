/* clatter — command-line entry point: dispatches to the subcommands of commands.h. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "clatter/clatter.h"
#include "clatter/output.h"
#include "commands.h"

static void print_usage(FILE *out) {
  fprintf(out,
          "clatter %s — rigid bodies with contact, friction and joints by complementarity\n"
          "\n"
          "usage:\n"
          "  clatter run [SCENE.json] [-o OUT.h5] [--set path=value ...] [--param name=value ...]\n"
          "              [--checkpoint-every N] [--max-steps N] [--quiet]\n"
          "  clatter run --resume OUT.h5 [--checkpoint-every N] [--max-steps N] [--quiet]\n"
          "  clatter info [--json] OUT.h5\n"
          "  clatter lcp [--solver NAME] [--json] FILE...\n"
          "  clatter plot OUT.h5 [OUT2.h5 ...] [QUANTITY ...] [-o plot.png] [--log]\n"
          "  clatter render OUT.h5 [--frame N | --frames A:B:S] [-o out.png] [--movie out.mp4]\n"
          "  clatter vtk OUT.h5 [-o DIR] [--frames A:B:S] [--surfaces auto|all|none] [--ascii]\n"
          "  clatter analyze OUT.h5 --what packing|coordination|forces|stress|profile|repose|flow\n"
          "                  [--frames A:B:S] [--region BOX] [--axis x|y|z] [--bins N] [-o OUT.csv] ...\n"
          "\n"
          "`clatter run` with no scene runs the built-in default scene.\n"
          "`clatter COMMAND --help` describes a command.\n",
          CLATTER_VERSION_STRING);
}

int main(int argc, char **argv) {
#ifdef __GLIBC__
  /* Arrays of 128 kB and more in mappings of their own, always. glibc raises this threshold to the
   * size of the first such array freed (up to 32 MB), after which the stepper's growing workspace
   * arrays are reallocated inside the heap and fragment it: 49 against 40 MB of peak RSS over the
   * first 300 steps of the 8·10³ pile (docs/design/granular.md "Memory"). */
  mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
  clt_output_no_exit_handler(); /* before any HDF5 call: output.h says why */
  /* The library runs every LAPACK call on one BLAS thread (base/algebra.h: the same bits for any
   * thread count), so OpenBLAS's worker threads only spin: started with one thread per core they
   * took 0.38 s of CPU where 0.25 s sufficed for 20 000 steps of chain6 (the same wall time), and
   * bench/peers' chain6 0.023 against 0.010 CPU ms a step. Before LAPACK is opened, and unless the
   * user chose a count (docs/library.md "BLAS threads"). */
  setenv("OPENBLAS_NUM_THREADS", "1", 0);
  if (argc < 2) {
    return clt_cmd_run(argc - 1, argv + 1);
  }
  const char *command = argv[1];
  if (strcmp(command, "run") == 0) return clt_cmd_run(argc - 2, argv + 2);
  if (strcmp(command, "info") == 0) return clt_cmd_info(argc - 2, argv + 2);
  if (strcmp(command, "lcp") == 0) return clt_cmd_lcp(argc - 2, argv + 2);
  if (strcmp(command, "plot") == 0) return clt_cmd_plot(argc - 2, argv + 2);
  if (strcmp(command, "render") == 0) return clt_cmd_render(argc - 2, argv + 2);
  if (strcmp(command, "vtk") == 0) return clt_cmd_vtk(argc - 2, argv + 2);
  if (strcmp(command, "analyze") == 0) return clt_cmd_analyze(argc - 2, argv + 2);
  if (strcmp(command, "--help") == 0 || strcmp(command, "-h") == 0 || strcmp(command, "help") == 0) {
    print_usage(stdout);
    return 0;
  }
  if (strcmp(command, "--version") == 0) {
    printf("clatter %s\n", CLATTER_VERSION_STRING);
    return 0;
  }
  fprintf(stderr, "clatter: unknown command '%s'\n\n", command);
  print_usage(stderr);
  return 2;
}
