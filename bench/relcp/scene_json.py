"""Writes a generated scene file (docs/scene-format.md) in the layout of the committed paper
scenes: the top-level keys one per line, then one body and one force element per line."""
import json


def write_scene(path, head, bodies, forces, output):
    out = ["{"]
    for k, v in head.items():
        out.append("  %s: %s," % (json.dumps(k), json.dumps(v)))
    out.append('  "bodies": [')
    out.append(",\n".join("    " + json.dumps(b) for b in bodies))
    out.append("  ],")
    out.append('  "forces": [')
    out.append(",\n".join("    " + json.dumps(f) for f in forces))
    out.append("  ],")
    out.append('  "output": %s' % json.dumps(output))
    out.append("}")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")
