/* claimcheck: render the maths that pymdownx.arithmatex (generic mode) leaves in the page, with
   the vendored KaTeX. trust: false keeps \href, \url and \html* out; errors show as red TeX. */
(function () {
  "use strict";
  function strip(tex) {
    if ((tex.startsWith("\\(") && tex.endsWith("\\)")) ||
        (tex.startsWith("\\[") && tex.endsWith("\\]"))) {
      return tex.slice(2, -2);
    }
    return tex;
  }
  function render() {
    if (!window.katex) { return; }
    document.querySelectorAll(".arithmatex").forEach(function (element) {
      var tex = strip(element.textContent.trim());
      window.katex.render(tex, element, {
        displayMode: element.tagName === "DIV", throwOnError: false, trust: false,
        strict: "ignore"
      });
    });
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", render);
  } else {
    render();
  }
})();
