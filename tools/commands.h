/* The clatter command-line tool: one function per subcommand. Each returns the process exit
 * status: 0 success, 1 runtime failure, 2 bad input (scene/problem/usage). */
#ifndef CLATTER_TOOLS_COMMANDS_H
#define CLATTER_TOOLS_COMMANDS_H

#include <stdbool.h>
#include <stddef.h>

int clt_cmd_run(int argc, char **argv);  /* tools/cmd_run.c */
int clt_cmd_info(int argc, char **argv); /* tools/cmd_info.c */
int clt_cmd_lcp(int argc, char **argv);  /* tools/cmd_lcp.c */
int clt_cmd_plot(int argc, char **argv);   /* tools/cmd_plot.c */
int clt_cmd_render(int argc, char **argv); /* tools/cmd_render.c */
int clt_cmd_vtk(int argc, char **argv);    /* tools/cmd_vtk.c */
int clt_cmd_analyze(int argc, char **argv); /* tools/cmd_analyze.c */

/* A file name stem made from text a file supplied (a scene's or run file's name): letters, digits,
 * '-', '_' and (not first) '.' are kept, anything else becomes '_', so that the name can neither
 * leave the folder it is written in (no '/', no leading '.' hence no "..") nor hide (no leading
 * dot); fallback when nothing of the name is left. tools/file_stem.c. */
void clt_tool_file_stem(const char *name, const char *fallback, char *out, size_t size);

#endif
