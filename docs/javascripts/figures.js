// A figure shrinks to the width of the column, but never so far that its box labels are drawn
// smaller than labelPx(): a broad graph on a phone keeps readable labels and scrolls sideways
// instead (the figure is then a scrolling region a keyboard can reach). Figures drawn smaller than
// their natural size also get a visible "Enlarge" button; it, or a tap on the drawing, opens the
// figure full screen at its natural size (labels at about 15 px), where it scrolls both ways and
// zooms with the + and − buttons or the browser's own pinch zoom. Escape or "Close" ends the view.
// Without script, a figure shrinks to the column. Checked by tests/test_browser.py.
(function () {
  "use strict";
  var ZOOMS = [0.5, 0.75, 1, 1.5, 2, 3];
  // The smallest a label is drawn inline: a little more than tests/test_browser.py asks for (10 px
  // on a phone, 12 px on a wider screen).
  function labelPx() {
    return window.matchMedia("(min-width: 60em)").matches ? 12.5 : 10.5;
  }
  var dialog = null;
  var zoom = 2; // index into ZOOMS: natural size

  function naturalWidth(svg) {
    return svg.width.baseVal.value; // Graphviz gives the size in pt; this is it in CSS px
  }

  function button(label, text, action) {
    var element = document.createElement("button");
    element.type = "button";
    element.className = "docexec-zoom__button";
    if (label) element.setAttribute("aria-label", label);
    element.textContent = text;
    element.addEventListener("click", action);
    return element;
  }

  function setZoom(index) {
    var svg = dialog.querySelector("svg");
    zoom = Math.max(0, Math.min(ZOOMS.length - 1, index));
    svg.style.width = naturalWidth(svg) * ZOOMS[zoom] + "px";
    dialog.querySelector(".docexec-zoom__level").textContent = Math.round(ZOOMS[zoom] * 100) + " %";
  }

  function makeDialog() {
    dialog = document.createElement("dialog");
    dialog.className = "docexec-zoom";
    var bar = document.createElement("div");
    bar.className = "docexec-zoom__bar";
    var level = document.createElement("span");
    level.className = "docexec-zoom__level";
    level.setAttribute("aria-live", "polite");
    bar.append(
      button("Zoom out", "−", function () { setZoom(zoom - 1); }),
      level,
      button("Zoom in", "+", function () { setZoom(zoom + 1); }),
      button("", "Close", function () { dialog.close(); })
    );
    var canvas = document.createElement("div");
    canvas.className = "docexec-zoom__canvas docexec-figure";
    dialog.append(bar, canvas);
    dialog.addEventListener("close", function () {
      if (dialog.docexecBack) dialog.docexecBack(); // the page's figure takes the step reached
      canvas.replaceChildren();
    });
    document.body.append(dialog);
  }

  function open(figure) {
    if (!dialog) makeDialog();
    var svg = figure.querySelector("svg").cloneNode(true);
    svg.querySelectorAll("[id]").forEach(function (node) { node.removeAttribute("id"); });
    svg.style.maxWidth = "none";
    svg.style.minWidth = "0";
    var canvas = dialog.querySelector(".docexec-zoom__canvas");
    canvas.replaceChildren(svg);
    var caption = figure.querySelector("figcaption");
    var code = caption && caption.querySelector("code");
    // steps.js: controls of its own, kept in view (extra.css), at the page's step and back to it
    var onPage = figure.querySelector(".docexec-steps");
    var at = onPage ? Number(onPage.getAttribute("data-step")) : 0;
    var steps = window.docexecSteps && window.docexecSteps.attach(svg, code ? code.textContent : "", at);
    if (steps) canvas.append(steps);
    dialog.docexecBack = steps && onPage ? function () { onPage.docexecGo(Number(steps.getAttribute("data-step"))); }
      : null;
    if (caption) canvas.append(caption.cloneNode(true));
    dialog.setAttribute("aria-label", "Figure, enlarged"); // the drawing inside says what it shows
    dialog.showModal();
    setZoom(ZOOMS.indexOf(1));
    if (steps && at) steps.docexecGo(at); // again, now that it is laid out: the step's Node scrolled into view
  }

  // The width at which the smallest label (of a box, an arrow or a group) is labelPx(), at most
  // the natural width; measured once the drawing is laid out (an answer's figure is not, until
  // the answer is opened).
  function readableWidth(svg) {
    var drawn = svg.getBoundingClientRect().width;
    var sizes = Array.prototype.map.call(svg.querySelectorAll("text"), function (text) {
      return parseFloat(getComputedStyle(text).fontSize) * text.getScreenCTM().a;
    });
    if (!drawn || !sizes.length) return 0;
    var smallest = Math.min.apply(null, sizes) * naturalWidth(svg) / drawn; // at the natural width
    return Math.min(naturalWidth(svg), Math.ceil(naturalWidth(svg) * labelPx() / smallest));
  }

  function update(figure) {
    var svg = figure.querySelector("svg");
    if (svg.getBoundingClientRect().width) svg.style.minWidth = readableWidth(svg) + "px";
    var shrunk = svg.getBoundingClientRect().width < naturalWidth(svg) - 1;
    figure.classList.toggle("docexec-figure--shrunk", shrunk);
    if (figure.scrollWidth > figure.clientWidth + 1) {
      figure.setAttribute("tabindex", "0"); // a region that scrolls: reachable from the keyboard
    } else {
      figure.removeAttribute("tabindex");
    }
  }

  var figures = document.querySelectorAll("figure.docexec-figure");
  // The drawing is observed, and the figure: styles or an unfolded answer can resize the drawing
  // while the figure's own box keeps its size, and a narrower window the figure alone (the
  // drawing keeps its minimum width).
  var observer = new ResizeObserver(function (entries) {
    entries.forEach(function (entry) { update(entry.target.closest("figure.docexec-figure") || entry.target); });
  });
  figures.forEach(function (figure) {
    var svg = figure.querySelector("svg");
    if (!svg) return;
    observer.observe(figure); // a narrower column: the readable width is measured again
    var enlarge = button("", "⤢ Enlarge the figure", function () { open(figure); });
    enlarge.classList.add("docexec-figure__enlarge");
    svg.after(enlarge);
    svg.addEventListener("click", function () {
      if (figure.classList.contains("docexec-figure--shrunk")) open(figure);
    });
    update(figure);
    observer.observe(svg);
  });
})();
