// kgforge merge review: optional comforts on top of a page that works
// without script. A filter that hides decided items (remembered in this
// browser), and keys: j and k move between items.
(function () {
  "use strict";
  var key = "kgforge-review-hide-decided";
  var top = document.querySelector("header.top");
  if (top) {
    var label = document.createElement("label");
    label.className = "filter";
    var box = document.createElement("input");
    box.type = "checkbox";
    box.id = "hide-decided";
    box.setAttribute("data-testid", "hide-decided");
    label.appendChild(box);
    label.appendChild(document.createTextNode(" hide decided items"));
    top.appendChild(label);
    var apply = function () {
      document.body.classList.toggle("hide-decided", box.checked);
      try { localStorage.setItem(key, box.checked ? "1" : ""); } catch (e) { /* storage off */ }
    };
    try { box.checked = localStorage.getItem(key) === "1"; } catch (e) { /* storage off */ }
    box.addEventListener("change", apply);
    apply();
  }

  function visible() {
    return Array.prototype.filter.call(document.querySelectorAll("article.item"), function (el) {
      return el.offsetParent !== null;
    });
  }
  var current = -1;
  document.addEventListener("keydown", function (ev) {
    var t = ev.target;
    if (ev.altKey || ev.ctrlKey || ev.metaKey || (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA"))) {
      return;
    }
    if (ev.key !== "j" && ev.key !== "k") {
      return;
    }
    var items = visible();
    if (!items.length) {
      return;
    }
    var old = items[current];
    current = Math.max(0, Math.min(items.length - 1, current + (ev.key === "j" ? 1 : -1)));
    if (old) {
      old.classList.remove("current");
    }
    items[current].classList.add("current");
    items[current].scrollIntoView({ block: "start" });
  });
})();
