// Material's search gives a page's own result the terms it matched in the page's opening text
// (?h=...), so that the page highlights them; a page whose opening text does not hold them (the
// terms are further down) gets an empty ?h=, and nothing is highlighted. Such a link carries the
// query's words instead. Checked by tests/test_browser.py.
(function () {
  "use strict";
  var input = document.querySelector("input.md-search__input");
  var list = document.querySelector(".md-search-result__list");
  if (!input || !list) return;

  // The words of the query as search matched them: not an excluded term (-word), and without the
  // query syntax around a term (quotes, +, field:, *, ~2, ^10).
  function queryWords() {
    return input.value.toLowerCase().split(/\s+/)
      .filter(function (term) { return term && term.charAt(0) !== "-"; })
      .map(function (term) {
        return term.replace(/["*]/g, "").replace(/^\+/, "").replace(/^\w+:/, "").replace(/[~^]\d*$/, "");
      })
      .join(" ").split(/[\s\-]+/).filter(Boolean).join(" ");
  }

  function fill() {
    var words = queryWords();
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
