#!/usr/bin/env bash
# `clatter render --movie`: frames piped to ffmpeg give an MP4 with the right frame count and
# size, written through a temporary name (none left behind); -o with --frames writes numbered
# PNGs alongside; an unwritable movie path fails with exit status 1 and leaves nothing.
source "$CLATTER_SOURCE_DIR/tests/viz/viz_lib.sh"
cd "$tmp"
command -v ffmpeg > /dev/null || die "ffmpeg is not installed (scripts/setup.sh installs it)"
run_ok "$CLATTER_BIN" run "$viz_dir/shapes2d.json" -o s2.h5 --quiet
run_ok "$CLATTER_BIN" render s2.h5 --frames 0:20:4 --size 161x121 --fps 10 --movie m.mp4 -o f.png > movie.out
grep -q "wrote m.mp4 (6 frames at 10 fps)" movie.out || die "movie summary: $(cat movie.out)"
[ -s m.mp4 ] || die "m.mp4 missing or empty"
[ ! -e m.mp4.part ] || die "temporary m.mp4.part left behind"
for n in 0000 0004 0008 0012 0016 0020; do [ -f "f_$n.png" ] || die "f_$n.png missing"; done
[ "$(ls f_*.png | wc -l)" -eq 6 ] || die "expected 6 numbered PNGs: $(ls f_*.png)"
probe=$(ffprobe -v error -count_frames -select_streams v:0 \
        -show_entries stream=nb_read_frames,width,height -of csv=p=0 m.mp4)
# Odd sizes are rounded up to even ones for H.264 (yuv420p).
[ "$probe" = "162,122,6" ] || die "ffprobe width,height,frames: '$probe', expected 162,122,6"
"$CLATTER_BIN" render s2.h5 --frames 0:2 --size 64x48 --movie no_such_dir/m.mp4 > /dev/null 2> bad.err
[ $? -eq 1 ] || die "an unwritable movie path must exit 1"
[ ! -e no_such_dir ] || die "nothing created for a failed movie"
echo "movie: ok ($probe)"
