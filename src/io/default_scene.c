/* The built-in default scene of `clatter run` (scene.h). Kept identical to
 * scenes/examples/default.json (tests/io/test_scene.c checks that). */
#include "clatter/scene.h"

static const char default_scene_json[] =
    "{\n"
    "  \"name\": \"default\",\n"
    "  \"description\": \"Built-in default scene of `clatter run`: a torque-free box with principal moments (2, 3, 4) kg m^2 spun about its intermediate axis (it flips over and back: the Dzhanibekov effect), and a projectile thrown beside it. No contacts or joints.\",\n"
    "  \"dimension\": 3,\n"
    "  \"time_step\": 0.001,\n"
    "  \"duration\": 10,\n"
    "  \"gravity\": [0, 0, -9.81],\n"
    "  \"method\": {\n"
    "    \"scheme\": \"anitescu-hart\",\n"
    "    \"gyroscopic\": \"explicit\"\n"
    "  },\n"
    "  \"bodies\": [\n"
    "    {\n"
    "      \"name\": \"tumbler\",\n"
    "      \"position\": [0, 0, 0],\n"
    "      \"angular_velocity\": [0.01, 5, 0.01],\n"
    "      \"mass\": 15,\n"
    "      \"inertia\": [2, 3, 4],\n"
    "      \"shape\": {\"type\": \"box\", \"half_extents\": [0.7071067811865476, 0.5477225575051661, 0.31622776601683794]}\n"
    "    },\n"
    "    {\n"
    "      \"name\": \"projectile\",\n"
    "      \"position\": [5, 0, 0],\n"
    "      \"velocity\": [2, 0, 49.05],\n"
    "      \"shape\": {\"type\": \"sphere\", \"radius\": 0.1}\n"
    "    }\n"
    "  ],\n"
    "  \"output\": {\n"
    "    \"interval\": 0.01\n"
    "  }\n"
    "}\n";

const char *clt_scene_default_json(void) { return default_scene_json; }
