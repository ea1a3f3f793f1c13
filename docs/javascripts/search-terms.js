// Material's search gives a page's own result the terms it matched in the page's opening text
// (?h=...), so that the page highlights them; a page whose opening text does not hold them (the
// terms are further down) gets an empty ?h=, and nothing is highlighted. Such a link carries the
// query's words instead. Checked by tests/test_browser.py.
(function () {
  "use strict";
  var input = document.querySelector("input.md-search__input");
  var list = document.querySelector(".md-search-result__list");
  if (!input || !list) return;

  function fill() {
    var words = input.value.trim().toLowerCase().split(/[\s\-]+/).filter(Boolean).join(" ");
    if (!words) return;
    list.querySelectorAll("a[href*='?h=']").forEach(function (link) {
      var url = new URL(link.href);
      if (url.searchParams.get("h") === "") {
        url.searchParams.set("h", words);
        link.href = url.href;
      }
    });
  }

  new MutationObserver(fill).observe(list, { childList: true, subtree: true });
})();
