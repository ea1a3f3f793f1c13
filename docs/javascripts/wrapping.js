// Long lines of a code block wrap (docs/stylesheets/extra.css); a wrapped line's continuation is
// indented four columns past the line's own indentation, as editors do, so that it does not read
// as a line of its own. Each line is a span of its own (pymdownx.highlight's line_spans option).
// Only how lines are shown changes: the copy button copies the text as it was.
document.querySelectorAll('.md-typeset pre > code > span[id^="__span-"]').forEach(function (line) {
  var indent = line.textContent.match(/^ */)[0].length + 4;
  line.style.paddingLeft = indent + "ch";
  line.style.textIndent = -indent + "ch";
});
