"""An MkDocs hook that keeps the site usable offline: a page that loads a script, a style sheet, a font or an image
from another host (a CDN, Google Fonts) is a build warning naming the page and the address, hence an error under
``mkdocs build --strict``. Links to other sites (``<a href>``) are fine: they are not loaded with the page."""

from __future__ import annotations

import logging
import re
from typing import Any

log = logging.getLogger("mkdocs.hooks.offline")

#: An element the browser loads with the page, pointing at another host (``http://``, ``https://`` or ``//``).
_EXTERNAL = re.compile(
    r"<(?:script|link|img|iframe|source|audio|video)\b[^>]*\b(?:src|href)=[\"']((?:https?:)?//[^\"']+)[\"']"
    r"|@import\s+(?:url\()?[\"']?((?:https?:)?//[^\"')\s]+)"
    r"|url\([\"']?((?:https?:)?//[^\"')\s]+)",
    re.I,
)


def on_post_page(output: str, page: Any, **_: Any) -> str:
    for match in _EXTERNAL.finditer(output):
        address = next(g for g in match.groups() if g)
        log.warning("%s loads %s from another host: the site must work offline", page.file.src_uri, address)
    return output
