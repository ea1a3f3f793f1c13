// Step through a recorded backward pass. A figure whose Nodes carry the step numbers the run
// recorded ("step ①", ...) gets controls under it: each step highlights the Node that ran, the
// arrows along which it received its gradient and those along which it sent gradients on (with
// the values the run recorded on them), dims the Nodes still to run, and says in a line under the
// figure, announced to screen readers, what the step did. The left and right arrow keys, Home and
// End work on the controls; the Enlarge view gets controls of its own (figures.js calls attach). Everything is
// read from the drawing: Graphviz's boxes and edges keep their DOT names (data-dot), so without
// script the static figure, with its step numbers, is what a reader sees. Checked by
// tests/test_browser.py. A figure of forward mode (figure=tangents, class forward-mode) is walked
// the other way: each step is an operation, its box the result, with the value and the tangent
// computed together, and the arrows into it are the inputs whose tangents it used.
(function () {
  "use strict";
  var CIRCLED = "①②③④⑤⑥⑦⑧⑨⑩⑪⑫⑬⑭⑮⑯⑰⑱⑲⑳";
  var MARKS = ["docexec-step-now", "docexec-step-later", "docexec-step-sent", "docexec-step-got"];

  function lines(group) {
    return Array.prototype.map.call(group.querySelectorAll("text"), function (text) {
      return text.textContent.trim();
    });
  }

  function stepOf(group) {
    var found = 0;
    lines(group).forEach(function (line) {
      var match = /^step (\S+)$/.exec(line);
      if (match) found = CIRCLED.indexOf(match[1]) + 1 || parseInt(match[1].replace(/[()]/g, ""), 10) || 0;
    });
    return found;
  }

  // The run's steps in order: each Node that ran, with the edges it received along and sent along.
  function plan(svg) {
    var boxes = {};
    svg.querySelectorAll("g.node[data-dot]").forEach(function (g) { boxes[g.getAttribute("data-dot")] = g; });
    var edges = Array.prototype.map.call(svg.querySelectorAll("g.edge[data-dot]"), function (g) {
      var ends = g.getAttribute("data-dot").split("->");
      return {g: g, from: ends[0], to: ends[1], flow: g.classList.contains("flow"),
              value: lines(g).join(" ")};
    });
    var made = {}; // a Node -> the name of the tensor it made (a dashed line joins them)
    edges.forEach(function (e) {
      if (!e.flow && boxes[e.from] && boxes[e.to] && /^n/.test(e.from) && /^t/.test(e.to)) made[e.from] = lines(boxes[e.to])[0];
    });
    var ran = Object.keys(boxes).filter(function (name) { return stepOf(boxes[name]) > 0; });
    ran.sort(function (a, b) { return stepOf(boxes[a]) - stepOf(boxes[b]); });
    if (svg.querySelector("g.graph.forward-mode")) { // forward mode: a step receives along its arrows
      return ran.map(function (name) {
        return {name: name, box: boxes[name], boxes: boxes, made: made, forward: true, sent: [], joined: [],
                got: edges.filter(function (e) { return e.to === name; })};
      });
    }
    return ran.map(function (name) {
      return {
        name: name, box: boxes[name], boxes: boxes, made: made,
        // an arrow runs the way the forward pass did: backward() sends against it
        sent: edges.filter(function (e) { return e.flow && e.to === name; }),
        got: edges.filter(function (e) { return e.flow && e.from === name; }),
        leaf: edges.filter(function (e) { return !e.flow && e.to === name && boxes[e.from]; })
                   .map(function (e) { return lines(boxes[e.from])[0]; })[0] || "",
        // the tensors joined to it: the output it made, or the leaf of an AccumulateGrad
        joined: edges.filter(function (e) { return !e.flow && (e.to === name || e.from === name); })
                     .map(function (e) { return boxes[e.to === name ? e.from : e.to]; }).filter(Boolean)
      };
    });
  }

  // A box by its first line, and its step where it has one: "MulBackward0 (step 2)".
  // and the tensor it made, where the figure draws one: "MulBackward0 (which made y, step 2)".
  function label(step, name) {
    var box = step.boxes[name];
    var ran = stepOf(box);
    var made = step.made[name];
    var notes = (made ? ["which made " + made] : []).concat(ran ? ["step " + ran] : []);
    return (lines(box)[0] || name) + (notes.length ? " (" + notes.join(", ") + ")" : "");
  }

  // What a hook did, from a line the run wrote on its box: "prehook before(): returned None".
  var HOOK_RAN = /^(prehook|hook|post-accumulate) (.+): returned (.+)$/;
  // What a Node saved, and whether the pass freed it: "saved self = x (freed)".
  var SAVED = /^saved (\S+)(?: = |: )(.+?)( \(freed\))?$/;

  function returned(value, what) {
    return value === "None" ? "returns None: " + what + " goes on as the hook left it"
                            : "returns " + value + ", which the pass uses instead of " + what;
  }

  function nodeHook(match) {
    if (match[1] === "prehook") {
      return "Before the Node runs, its prehook " + match[2] + " runs on what it receives and " +
        returned(match[3], "that") + ".";
    }
    return "Once the Node has computed its gradients, its hook " + match[2] + " runs on what it computed and " +
      returned(match[3], "that") + ".";
  }

  function tensorHook(match, tensor) {
    if (match[1] === "post-accumulate") {
      return "After " + tensor + ".grad is updated, the hook " + match[2] + " registered on " + tensor +
        " runs (it is given " + tensor + " itself, to read the new .grad).";
    }
    return "Before this Node runs, the hook " + match[2] + " registered on " + tensor + " runs on the " +
      "gradient " + tensor + " receives and " + returned(match[3], "that gradient") + ".";
  }

  function unpacked(saved) {
    if (!saved.length) return "";
    var freed = saved.every(function (match) { return match[3]; });
    return "It unpacks what it saved for this step: " + saved.map(function (match) {
      return match[1] + " (" + match[2] + ")";
    }).join(", ") + "." + (freed ? " Once it has run, the Node lets go of " + (saved.length > 1 ? "them" : "it") +
                                   " (a tensor lives on where the example still holds it)." : "");
  }

  // A step of forward mode: its box says "y / step ② / sin of dual_x / value [..] / tangent [..]".
  function sayForward(steps, index) {
    if (index === 0) {
      return steps.length + " operations will run, in the order of the circled numbers; each that computes " +
        "a value computes its tangent in the same call. Press Next to walk them as the example's run did.";
    }
    var step = steps[index - 1];
    var box = lines(step.box);
    var find = function (found, prefix) {
      return found.filter(function (line) { return line.indexOf(prefix) === 0; })[0] || "";
    };
    var words = ["Step " + index + " of " + steps.length + ": " + box[2] + " runs, and makes " + box[0] + "."];
    var carried = step.got.map(function (e) { return step.boxes[e.from]; }).filter(function (g) {
      return find(lines(g), "tangent ");
    }).map(function (g) { return lines(g)[0] + " (" + find(lines(g), "tangent ") + ")"; });
    if (!carried.length) { // make_dual: no input carries a tangent yet
      words.push("It pairs the " + find(box, "value ") + " with the " + find(box, "tangent ") +
                 ", given as they are: nothing is computed.");
      return words.join(" ");
    }
    words.push("It computes the " + find(box, "value ") + " and, in the same call, the " + find(box, "tangent ") +
               ", worked out from the tangent its input carries: " + carried.join(", ") + ".");
    return words.join(" ");
  }

  function say(steps, index) {
    if (steps.length && steps[0].forward) return sayForward(steps, index);
    if (index === 0) {
      return steps.length + " Nodes will run, in the order of the circled numbers. Press Next: the Node " +
        "running gets an orange outline, the arrows it receives along turn blue and dashed, those it sends " +
        "along orange (gradients travel against the arrows, which follow the forward pass).";
    }
    var step = steps[index - 1];
    var rest = lines(step.box).slice(1).filter(function (line) { return !/^step /.test(line); });
    var of = step.leaf ? " of " + step.leaf : "";
    // an AccumulateGrad with no tensor drawn above it says which leaf: "of fc.weight, (4, 4)"
    var unseen = rest.filter(function (line) { return /^of /.test(line); })[0];
    if (unseen) of = " " + unseen;
    var words = ["Step " + index + " of " + steps.length + ": " + lines(step.box)[0] + of + " runs."];
    var before = [], after = [], saved = [];
    step.joined.forEach(function (tensor) {
      var name = lines(tensor)[0];
      lines(tensor).forEach(function (line) {
        var ran = HOOK_RAN.exec(line);
        if (ran) (ran[1] === "post-accumulate" ? after : before).push(tensorHook(ran, name));
        else if (/^hooks: /.test(line)) before.push("Hooks are registered on " + name + " (" + line.slice(7) +
          ") but did not run in this pass.");
      });
    });
    rest.forEach(function (line) {
      var ran = HOOK_RAN.exec(line);
      if (ran && ran[1] === "prehook") before.push(nodeHook(ran));
      else if (ran) after.push(nodeHook(ran));
    });
    words.push(received(step));
    words = words.concat(before);
    rest.forEach(function (line) {
      var adds = /^adds (.+)$/.exec(line);
      var keeps = SAVED.exec(line);
      if (adds) words.push("It adds " + adds[1] + " into " + (step.leaf ? step.leaf + ".grad." : "that leaf's .grad."));
      else if (keeps) saved.push(keeps);
      else if (/^hooks: /.test(line)) words.push("Hooks are registered on it (" + line.slice(7) +
                                                 ") but did not run in this pass.");
      else if (line !== unseen && !HOOK_RAN.test(line)) words.push("Its box says: " + line + ".");
    });
    words.push(unpacked(saved));
    words = words.concat(after);
    var sent = [];
    step.sent.filter(function (e) { return e.value; }).forEach(function (e) {
      var said = e.value + " to " + label(step, e.from) +
                 (stepOf(step.boxes[e.from]) ? "" : ", which does not run in this pass");
      var same = sent.filter(function (s) { return s.said === said; })[0];
      if (same) same.times += 1; else sent.push({said: said, times: 1});
    });
    if (sent.length) words.push("It sends " + sent.map(function (s) {
      return s.said + (s.times > 1 ? ", " + (s.times === 2 ? "twice" : s.times + " times") + " (one arrow each)" : "");
    }).join("; ") + ".");
    return words.filter(Boolean).join(" ");
  }

  // What a step's Node receives: the gradients sent along its arrows (as sent, before any hook),
  // or, for a Node no arrow leads back to (a root of the pass), the seed the pass starts with.
  function received(step) {
    var got = step.got.filter(function (e) { return e.value; }).map(function (e) {
      return e.value + " from " + label(step, e.to);
    });
    var twice = got.length === 2 && got[0] === got[1]; // y * y: the same gradient along both arrows
    if (got.length > 1) return "It receives " + (twice ? got[0] + " twice (one arrow each)" : got.join(" and ")) +
                               ", added into one gradient before it runs.";
    if (got.length) return "It receives " + got[0] + ".";
    return step.got.length ? "" : "It receives the seed gradient the pass starts with.";
  }

  function show(svg, steps, index, line) {
    svg.querySelectorAll("." + MARKS.join(", .")).forEach(function (g) { g.classList.remove.apply(g.classList, MARKS); });
    steps.forEach(function (step, at) {
      if (index > 0 && at + 1 > index) step.box.classList.add("docexec-step-later");
    });
    if (index > 0) {
      var step = steps[index - 1];
      step.box.classList.add("docexec-step-now");
      // only arrows along which the run recorded a gradient: the text names those alone
      step.sent.forEach(function (e) { if (e.value) e.g.classList.add("docexec-step-sent"); });
      step.got.forEach(function (e) { if (e.value || step.forward) e.g.classList.add("docexec-step-got"); });
      step.box.scrollIntoView({block: "nearest", inline: "nearest"});
    }
    line.textContent = say(steps, index);
  }

  function control(text, name, action) {
    var element = document.createElement("button");
    element.type = "button";
    element.className = "docexec-zoom__button";
    element.setAttribute("aria-label", name);
    element.textContent = text;
    element.addEventListener("click", action);
    return element;
  }

  // Controls for the drawing ``svg`` of the example ``name`` (the caller puts them after it), at
  // step ``start``, or null when the drawing records no backward pass of two steps or more.
  function attach(svg, name, start) {
    var steps = plan(svg);
    if (steps.length < 2) return null;
    var index = 0;
    var line = document.createElement("p");
    line.className = "docexec-steps__say";
    line.setAttribute("aria-live", "polite");
    var group = document.createElement("div");
    group.className = "docexec-steps";
    group.setAttribute("role", "group");
    group.setAttribute("aria-label", "Step through the " + (steps[0].forward ? "forward" : "backward") + " pass" +
                       (name ? " of " + name : ""));
    function go(to) {
      index = Math.max(0, Math.min(steps.length, to));
      group.setAttribute("data-step", String(index)); // the full-screen view opens at it (figures.js)
      show(svg, steps, index, line);
      group.querySelectorAll("button").forEach(function (button, at) { // at an end, say so
        button.setAttribute("aria-disabled", String(at < 2 ? index === 0 : index === steps.length));
      });
    }
    group.append(
      control("Start", "Start: before the first step", function () { go(0); }),
      control("◀ Back", "Back: previous step", function () { go(index - 1); }),
      control("Next ▶", "Next step", function () { go(index + 1); }),
      control("End", "End: last step", function () { go(steps.length); }),
      line
    );
    group.addEventListener("keydown", function (event) {
      var to = {ArrowRight: index + 1, ArrowLeft: index - 1, Home: 0, End: steps.length}[event.key];
      if (to === undefined || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
      event.preventDefault();
      go(to);
    });
    group.docexecGo = go;
    go(start || 0);
    return group;
  }

  window.docexecSteps = {attach: attach};
  // not the key to the figures, whose boxes show what a step number looks like
  document.querySelectorAll("figure.docexec-figure > svg").forEach(function (svg) {
    if (svg.closest(".docexec-key")) return;
    var code = svg.parentNode.querySelector("figcaption code");
    var controls = attach(svg, code ? code.textContent : "");
    if (controls) svg.after(controls);
  });
})();
