"""SVG files (training curves, SVGs in the wiki, the claim graph) reduced to drawing, with nh3.

An SVG opened on its own URL runs its scripts with the site's origin, so every SVG the site
publishes passes this allow-list first: shapes, paths, text, groups, clip paths, ``use`` of a
local ``#id``, and presentation attributes. No ``script``, ``style`` element, ``foreignObject``,
animation, event handler or ``data:`` URL survives, and no external reference: a ``url(...)``
in an attribute or a ``style`` declaration, an ``href``/``xlink:href``, is kept only when it
names a fragment of the same document (``#id``). A ``style`` declaration keeps only plain values
(colours, numbers, names, ``rgb()``/``hsl()``, ``url(#id)``); one with a CSS escape, a comment,
an ``@`` rule or any other function is dropped. Only the claim graph that the tool draws itself
(:func:`clean_svg` with ``site_links``) keeps its links to the site's own pages (relative URLs).
The result is checked to be well-formed XML; an SVG that is not (or is larger than
:data:`MAX_SVG_BYTES`) is not published.
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
_LOCAL_REFERENCE = re.compile(r"^url\(\s*['\"]?#[\w.:-]+['\"]?\s*\)$")
_FRAGMENT = re.compile(r"^#[\w.:-]+$")
_PLAIN_VALUE = re.compile(r"^[\w\s#.,%+'\"-]*$")
_COLOUR_FUNCTION = re.compile(r"^(rgba?|hsla?)\([\d\s.,%]*\)$", re.IGNORECASE)
_RELATIVE_LINK = re.compile(r"^(?![a-z][a-z0-9+.-]*:|//|\\)[^\s\\]*$", re.IGNORECASE)


def _plain_css_value(value: str) -> bool:
    """A declaration value that cannot fetch or run anything."""
    value = value.strip()
    return bool(_PLAIN_VALUE.match(value) or _COLOUR_FUNCTION.match(value)
                or _LOCAL_REFERENCE.match(value))


def _clean_style(value: str) -> str | None:
    if any(bad in value for bad in ("\\", "/*", "@", "<", "&")):
        return None
    kept = []
    for declaration in value.split(";"):
        name, colon, setting = declaration.partition(":")
        if colon and _plain_css_value(setting):
            kept.append(f"{name.strip()}: {setting.strip()}")
    return "; ".join(kept) or None


def _filter(tag: str, name: str, value: str, site_links: bool = False) -> str | None:
    if name == "style":
        return _clean_style(value)
    if "url(" in value.lower():
        return value if _LOCAL_REFERENCE.match(value.strip()) else None
    if name == "target":
        return value if value in ("_top", "_self", "_parent") else None
    if name in ("href", "xlink:href"):
        if _FRAGMENT.match(value.strip()):
            return value
        return value if site_links and tag == "a" and _RELATIVE_LINK.match(value) else None
    return value


def _cleaner(site_links: bool) -> nh3.Cleaner:
    return nh3.Cleaner(
        tags=_TAGS,
        clean_content_tags={"script", "style", "foreignObject"},
        attributes={"*": _ATTRIBUTES},
        attribute_filter=lambda tag, name, value: _filter(tag, name, value, site_links),
        link_rel=None,
        url_schemes={"http", "https"},
        filter_style_properties=_STYLE_PROPERTIES,
    )


_CLEANERS = {False: _cleaner(False), True: _cleaner(True)}


def clean_svg(text: str, site_links: bool = False) -> str | None:
    """The drawing of an SVG document without anything active, or ``None`` if it is unusable.

    ``site_links`` keeps ``<a>`` links to relative URLs: only for the claim graph the tool draws
    itself, never for a committed SVG (a curve artifact, an image in the wiki).
    """
    if len(text.encode("utf-8", "replace")) > MAX_SVG_BYTES:
        return None
    cleaned = str(_CLEANERS[site_links].clean(text)).strip().replace("&nbsp;", "&#160;")
    if not cleaned.startswith("<svg"):
        return None
    if "xmlns=" not in cleaned.split(">", 1)[0]:
        cleaned = '<svg xmlns="http://www.w3.org/2000/svg"' + cleaned[len("<svg") :]
    try:
        ElementTree.fromstring(cleaned)
    except ElementTree.ParseError:
        return None
    return cleaned + "\n"
