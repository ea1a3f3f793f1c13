// Long lines of a code block wrap (docs/stylesheets/extra.css); a wrapped line's continuation is
// indented four columns past the line's own indentation, as editors do, so that it does not read
// as a line of its own, and a line never wraps right after its indentation (a long first word
// would leave the line empty). On a chapter each line is a span of its own (pymdownx.highlight's
// line_spans option); on a notebook page (nbconvert's HTML) the lines are made spans here. Only how
// lines are shown changes: the copy button copies the text as it was.
(function () {
  function hang(line) {
    var indent = line.textContent.match(/^ */)[0].length + 4;
    line.style.paddingLeft = indent + "ch";
    line.style.textIndent = -indent + "ch";
    // The indentation and the character after it in a span that does not wrap: a break between
    // them is then no longer a place to wrap (it would leave the line empty). The character may
    // start a token's span, which is then split in two of the same class.
    var walker = document.createTreeWalker(line, NodeFilter.SHOW_TEXT);
    var first = walker.nextNode();
    var blanks = first && first.textContent.match(/^ +/);
    if (!blanks) return;
    var keep = document.createElement("span");
    keep.className = "docexec-indent";
    first.parentNode.insertBefore(keep, first);
    if (blanks[0].length < first.textContent.length) {
      if (blanks[0].length + 1 < first.textContent.length) first.splitText(blanks[0].length + 1);
      keep.appendChild(first);
      return;
    }
    keep.appendChild(first);
    var next = walker.nextNode();
    if (!next || !next.textContent) return;
    if (next.textContent.length > 1) next.splitText(1);
    if (next.parentNode === line) {
      keep.appendChild(next);
    } else if (next.parentNode.parentNode === line && next === next.parentNode.firstChild) {
      var part = next.parentNode.cloneNode(false);
      part.appendChild(next);
      keep.appendChild(part);
    }
  }

  // The HTML of a <pre> as one span per line: each line break ends the tags open at that point,
  // and the next line opens them again (a multi-line string is one token of several lines).
  function lineSpans(pre) {
    var parts = pre.innerHTML.split(/(<[^>]+>)/), open = [], lines = [], line = "";
    parts.forEach(function (part) {
      if (part.charAt(0) === "<") {
        if (part.charAt(1) === "/") open.pop();
        else if (part.slice(-2) !== "/>") open.push(part);
        line += part;
        return;
      }
      var pieces = part.split("\n");
      pieces.forEach(function (piece, index) {
        line += piece;
        if (index === pieces.length - 1) return;
        lines.push(line + "\n" + open.map(function () { return "</span>"; }).join(""));
        line = open.join("");
      });
    });
    if (line.replace(/<[^>]+>/g, "") !== "") lines.push(line);
    pre.innerHTML = lines.map(function (text) {
      return '<span class="docexec-line">' + text + "</span>";
    }).join("");
    return pre.querySelectorAll(":scope > span.docexec-line");
  }

  document.querySelectorAll('.md-typeset pre > code > span[id^="__span-"]').forEach(hang);
  document.querySelectorAll(".jupyter-wrapper .highlight-ipynb pre").forEach(function (pre) {
    if (pre.querySelector(":not(span)")) return;  // only Pygments' token spans are split across lines
    lineSpans(pre).forEach(hang);
  });
})();
