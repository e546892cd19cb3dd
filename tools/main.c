/* clatter — command-line entry point: dispatches to the subcommands of commands.h. */
#include <stdio.h>
#include <string.h>

#include "clatter/clatter.h"
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
          "  clatter vtk OUT.h5 [-o DIR] [--frames A:B:S]\n"
          "\n"
          "`clatter run` with no scene runs the built-in default scene.\n"
          "`clatter COMMAND --help` describes a command.\n",
          CLATTER_VERSION_STRING);
}

int main(int argc, char **argv) {
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
