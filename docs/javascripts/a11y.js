// Small accessibility repairs for markup this site does not write itself (checked by axe-core in
// tests/test_browser.py).

// Material's search panel is a dialog without a name (axe rule aria-dialog-name).
document.querySelectorAll('.md-search[role="dialog"]').forEach(function (dialog) {
  dialog.setAttribute("aria-label", "Search");
});

// Notebook pages (mkdocs-jupyter): code areas that scroll sideways must be reachable by keyboard
// (scrollable-region-focusable), and heading anchors need a name (link-name).
document.querySelectorAll(".jupyter-wrapper .jp-InputArea-editor, .jupyter-wrapper pre")
  .forEach(function (area) {
    area.setAttribute("tabindex", "0");
  });
document.querySelectorAll('a[href^="#"]').forEach(function (link) {
  if (!link.textContent.trim() && !link.getAttribute("aria-label")) {
    link.setAttribute("aria-label", "Link to this section");
  }
});

// A table wider than the column scrolls sideways inside Material's wrapper: reachable by keyboard
// (scrollable-region-focusable) and named, only while it does scroll.
function reachTables() {
  document.querySelectorAll(".md-typeset__scrollwrap").forEach(function (wrap) {
    if (wrap.scrollWidth > wrap.clientWidth + 1) {
      wrap.setAttribute("tabindex", "0");
      wrap.setAttribute("role", "region");
      wrap.setAttribute("aria-label", "Table, scrolls sideways");
    } else {
      ["tabindex", "role", "aria-label"].forEach(function (name) { wrap.removeAttribute(name); });
    }
  });
}
// Material wraps the tables once the page is shown, after this script ran.
if (typeof document$ !== "undefined") {
  document$.subscribe(function () { setTimeout(reachTables, 0); });
}
window.addEventListener("load", reachTables);
window.addEventListener("resize", reachTables);
