# dmgbuild settings for Lantern's disk image: the app and a link to /Applications, side by
# side, so installing is one drag. Used by `packaging/build.py --dmg` (macOS only); `app` and
# `icon` come in as -D definitions. `defines` is provided by dmgbuild.
# ruff: noqa: F821
import os.path

application = defines["app"]
format = "UDZO"
size = None
files = [application]
symlinks = {"Applications": "/Applications"}
badge_icon = defines.get("icon")
icon_locations = {os.path.basename(application): (140, 160), "Applications": (420, 160)}
window_rect = ((200, 120), (560, 360))
default_view = "icon-view"
show_icon_preview = False
icon_size = 96
text_size = 13
