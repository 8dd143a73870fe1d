"""SVG files (training curves, SVGs in the wiki, the claim graph) reduced to drawing, with nh3.

An SVG opened on its own URL runs its scripts with the site's origin, so every SVG the site
publishes passes this allow-list first: shapes, paths, text, groups, clip paths, ``use`` of a
local ``#id``, and presentation attributes; links (``<a>``) only to relative or ``http(s)``
URLs. No ``script``, ``style`` element, ``foreignObject``, animation, event handler, external
reference or ``data:`` URL survives. The result is checked to be well-formed XML; an SVG that
is not (or is larger than :data:`MAX_SVG_BYTES`) is not published.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ElementTree

import nh3

MAX_SVG_BYTES = 5_000_000
_TAGS = {
    "svg", "g", "defs", "symbol", "use", "path", "rect", "circle", "ellipse", "line", "polyline",
    "polygon", "text", "tspan", "title", "desc", "clipPath", "mask", "linearGradient",
    "radialGradient", "stop", "marker", "a",
}
_ATTRIBUTES = {
    "id", "class", "transform", "style", "clip-path", "clip-rule", "mask", "x", "y", "x1", "x2",
    "y1", "y2", "cx", "cy", "r", "rx", "ry", "width", "height", "viewBox", "d", "points", "fill",
    "fill-opacity", "fill-rule", "stroke", "stroke-width", "stroke-opacity", "stroke-dasharray",
    "stroke-linecap", "stroke-linejoin", "stroke-miterlimit", "opacity", "font-family",
    "font-size", "font-weight", "font-style", "text-anchor", "dominant-baseline", "dx", "dy",
    "xmlns", "xlink", "version", "preserveAspectRatio", "offset", "stop-color", "stop-opacity",
    "gradientUnits", "gradientTransform", "clipPathUnits", "markerWidth", "markerHeight",
    "refX", "refY", "orient", "href", "xlink:href", "target",
}
_STYLE_PROPERTIES = {
    "fill", "fill-opacity", "fill-rule", "stroke", "stroke-width", "stroke-opacity",
    "stroke-dasharray", "stroke-dashoffset", "stroke-linecap", "stroke-linejoin",
    "stroke-miterlimit", "opacity", "font", "font-family", "font-size", "font-weight",
    "font-style", "text-anchor", "dominant-baseline", "clip-rule", "visibility", "display",
}
_LOCAL_REFERENCE = re.compile(r"^url\(#[\w.:-]+\)$")


def _filter(tag: str, name: str, value: str) -> str | None:
    if name in ("clip-path", "mask", "fill", "stroke") and "url(" in value:
        return value if _LOCAL_REFERENCE.match(value.strip()) else None
    if name == "target":
        return value if value in ("_top", "_self", "_parent") else None
    if tag == "use" and name in ("href", "xlink:href"):
        return value if value.startswith("#") else None
    return value


_CLEANER = nh3.Cleaner(
    tags=_TAGS,
    clean_content_tags={"script", "style", "foreignObject"},
    attributes={"*": _ATTRIBUTES},
    attribute_filter=_filter,
    link_rel=None,
    url_schemes={"http", "https"},
    filter_style_properties=_STYLE_PROPERTIES,
)


def clean_svg(text: str) -> str | None:
    """The drawing of an SVG document without anything active, or ``None`` if it is unusable."""
    if len(text.encode("utf-8", "replace")) > MAX_SVG_BYTES:
        return None
    cleaned = str(_CLEANER.clean(text)).strip().replace("&nbsp;", "&#160;")
    if not cleaned.startswith("<svg"):
        return None
    if "xmlns=" not in cleaned.split(">", 1)[0]:
        cleaned = '<svg xmlns="http://www.w3.org/2000/svg"' + cleaned[len("<svg") :]
    try:
        ElementTree.fromstring(cleaned)
    except ElementTree.ParseError:
        return None
    return cleaned + "\n"
