/* Mesh files (docs/shapes.md "Mesh files"): OBJ, STL (binary and ASCII), PLY, OFF, COLLADA and the
 * other formats of the Open Asset Import Library (assimp's C API, Debian libassimp-dev), read into
 * vertices and triangles in the file's units times a scale, the node transforms of the file
 * applied; and the hull of a file's vertices as a polyhedron. */
#include <assimp/cimport.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clatter/scene.h"

static void set_message(char *message, size_t size, const char *fmt, const char *path, const char *detail) {
  if (message && size > 0) snprintf(message, size, fmt, path, detail);
}

clt_status_t clt_mesh_file_read(const char *path, const double scale[3], double (**vertices)[3], int *vertex_count,
                                int (**triangles)[3], int *triangle_count, char *message, size_t message_size) {
  if (!path || !vertices || !vertex_count || !triangles || !triangle_count) return CLT_ERR_INVALID_ARGUMENT;
  *vertices = NULL;
  *triangles = NULL;
  *vertex_count = *triangle_count = 0;
  double s[3] = {1.0, 1.0, 1.0};
  if (scale)
    for (int k = 0; k < 3; k++) s[k] = scale[k];
  for (int k = 0; k < 3; k++)
    if (!(isfinite(s[k]) && s[k] > 0.0)) {
      set_message(message, message_size, "%s: scale must be > 0 and finite%s", path, "");
      return CLT_ERR_INVALID_ARGUMENT;
    }
  FILE *probe = fopen(path, "rb");
  if (!probe) {
    set_message(message, message_size, "%s: cannot open the mesh file%s", path, "");
    return CLT_ERR_IO;
  }
  fclose(probe);
  /* Triangulated, duplicate vertices joined (STL repeats each triangle's corners), node transforms
   * baked into the vertices. */
  const struct aiScene *scene = aiImportFile(
      path, aiProcess_Triangulate | aiProcess_JoinIdenticalVertices | aiProcess_PreTransformVertices |
                aiProcess_SortByPType);
  if (!scene) {
    set_message(message, message_size, "%s: not a mesh file assimp reads: %s", path, aiGetErrorString());
    return CLT_ERR_FORMAT;
  }
  long nv = 0, nt = 0;
  for (unsigned m = 0; m < scene->mNumMeshes; m++) {
    const struct aiMesh *mesh = scene->mMeshes[m];
    if (!(mesh->mPrimitiveTypes & aiPrimitiveType_TRIANGLE)) continue;
    nv += mesh->mNumVertices;
    for (unsigned f = 0; f < mesh->mNumFaces; f++) nt += mesh->mFaces[f].mNumIndices == 3;
  }
  if (nv == 0 || nt == 0 || nv > 100000000L || nt > 100000000L) {
    aiReleaseImport(scene);
    set_message(message, message_size, "%s: %s", path,
                nv == 0 || nt == 0 ? "the file has no triangles" : "more than 10^8 vertices or triangles");
    return CLT_ERR_FORMAT;
  }
  double(*v)[3] = malloc((size_t)nv * sizeof *v);
  int(*t)[3] = malloc((size_t)nt * sizeof *t);
  if (!v || !t) {
    free(v);
    free(t);
    aiReleaseImport(scene);
    return CLT_ERR_OUT_OF_MEMORY;
  }
  long base = 0, k = 0;
  for (unsigned m = 0; m < scene->mNumMeshes; m++) {
    const struct aiMesh *mesh = scene->mMeshes[m];
    if (!(mesh->mPrimitiveTypes & aiPrimitiveType_TRIANGLE)) continue;
    for (unsigned i = 0; i < mesh->mNumVertices; i++) {
      v[base + i][0] = s[0] * mesh->mVertices[i].x;
      v[base + i][1] = s[1] * mesh->mVertices[i].y;
      v[base + i][2] = s[2] * mesh->mVertices[i].z;
    }
    for (unsigned f = 0; f < mesh->mNumFaces; f++) {
      const struct aiFace *face = &mesh->mFaces[f];
      if (face->mNumIndices != 3) continue;
      for (int c = 0; c < 3; c++) t[k][c] = (int)(base + face->mIndices[c]);
      k++;
    }
    base += mesh->mNumVertices;
  }
  aiReleaseImport(scene);
  for (long i = 0; i < nv; i++)
    if (!(isfinite(v[i][0]) && isfinite(v[i][1]) && isfinite(v[i][2]))) {
      char detail[64];
      snprintf(detail, sizeof detail, "vertex %ld is not finite", i);
      set_message(message, message_size, "%s: %s", path, detail);
      free(v);
      free(t);
      return CLT_ERR_FORMAT;
    }
  *vertices = v;
  *triangles = t;
  *vertex_count = (int)nv;
  *triangle_count = (int)nt;
  return CLT_OK;
}

clt_status_t clt_convex_from_file(const char *path, const double scale[3], clt_convex_t **out, char *message,
                                  size_t message_size) {
  if (!out) return CLT_ERR_INVALID_ARGUMENT;
  *out = NULL;
  double(*v)[3] = NULL;
  int(*t)[3] = NULL, nv = 0, nt = 0;
  clt_status_t status = clt_mesh_file_read(path, scale, &v, &nv, &t, &nt, message, message_size);
  if (status != CLT_OK) return status;
  char reason[256] = "";
  status = clt_convex_from_points((const double(*)[3])v, nv, out, reason, sizeof reason);
  if (status != CLT_OK && message && message_size) snprintf(message, message_size, "%s: %s", path, reason);
  free(v);
  free(t);
  return status;
}
