// Live updates (Server-Sent Events) and deadline countdowns. No build step.
(function () {
  function countdowns() {
    var now = Date.now() / 1000;
    document.querySelectorAll("[data-due]").forEach(function (el) {
      var left = Math.max(0, Math.round(parseFloat(el.dataset.due) - now));
      var d = Math.floor(left / 86400), h = Math.floor(left % 86400 / 3600), m = Math.floor(left % 3600 / 60), s = left % 60;
      el.textContent = left === 0 ? "已到时限" : (d ? d + "天" : "") + h + "小时" + m + "分" + s + "秒";
    });
  }
  // a confirmation's text may name the form's fields: "{target}" is the chosen target (a select's
  // option text, an input's value), so the dialog says exactly what will happen
  function confirmText(text, form) {
    return text.replace(/\{([a-z_]+)\}/g, function (all, name) {
      var el = form.elements[name];
      if (!el) return all;
      if (el.tagName === "SELECT") return el.selectedIndex >= 0 ? el.options[el.selectedIndex].text : "";
      return el.value || "（未填写）";
    });
  }
  // behaviour from data- attributes (no inline script: the Content-Security-Policy forbids it);
  // the clicked button's data-confirm comes before its form's
  document.addEventListener("submit", function (ev) {
    var form = ev.target;
    if (!form || !form.dataset) return;
    var by = ev.submitter && ev.submitter.dataset && ev.submitter.dataset.confirm !== undefined ? ev.submitter : form;
    if (by.dataset.confirm !== undefined && !window.confirm(confirmText(by.dataset.confirm, form))) {
      ev.preventDefault();
    }
  }, true);
  document.addEventListener("click", function (ev) {
    var el = ev.target;
    if (el && el.hasAttribute && el.hasAttribute("data-select-on-click")) el.select();
    // a copy button: data-copy names the text box whose whole text goes to the clipboard
    if (el && el.dataset && el.dataset.copy) {
      var box = document.querySelector(el.dataset.copy);
      if (!box) return;
      var done = function () { el.dataset.copied = "1"; el.textContent = "已复制"; };
      box.select();
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(box.value).then(done, function () { document.execCommand("copy"); done(); });
      } else {
        document.execCommand("copy");
        done();
      }
    }
  });
  // select all / none: data-check="selector" on a button, data-checked="1" or "0"
  document.addEventListener("click", function (ev) {
    var el = ev.target;
    if (!el || !el.dataset || el.dataset.check === undefined) return;
    ev.preventDefault();
    document.querySelectorAll(el.dataset.check).forEach(function (box) { box.checked = el.dataset.checked === "1"; });
  });
  // a target list that depends on earlier choices (代投: the voter; the desk: the player and the
  // skill): data-filter-by names those selects, each option's data-for is a JSON list of the keys
  // it belongs to (their values joined by a space: names hold no spaces); the others are hidden
  function filterOptions(source) {
    document.querySelectorAll("select[data-filter-by]").forEach(function (sel) {
      var ids = sel.dataset.filterBy.split(" ");
      if (ids.indexOf("#" + source.id) < 0) return;
      var key = ids.map(function (id) { var s = document.querySelector(id); return s ? s.value : ""; }).join(" ");
      var keep = false;
      Array.prototype.forEach.call(sel.options, function (opt) {
        if (opt.dataset.for === undefined) return;
        var ok = JSON.parse(opt.dataset.for).indexOf(key) >= 0;
        opt.hidden = !ok;
        opt.disabled = !ok;
        if (ok && opt.selected) keep = true;
      });
      if (!keep) sel.value = "";
    });
  }
  document.addEventListener("change", function (ev) {
    var el = ev.target;
    if (el && el.hasAttribute && el.hasAttribute("data-autosubmit") && el.form) el.form.submit();
    if (el && el.id && el.tagName === "SELECT") filterOptions(el);
  });
  function initFilters() {
    document.querySelectorAll("select[data-filter-by]").forEach(function (sel) {
      sel.dataset.filterBy.split(" ").forEach(function (id) {
        var source = document.querySelector(id);
        if (source) filterOptions(source);
      });
    });
  }
  document.addEventListener("DOMContentLoaded", initFilters);
  document.addEventListener("htmx:afterSwap", initFilters);
  setInterval(countdowns, 1000);
  document.addEventListener("DOMContentLoaded", countdowns);
  document.addEventListener("htmx:afterSwap", countdowns);
  document.addEventListener("DOMContentLoaded", function () {
    var live = document.getElementById("live");
    if (!live || !live.dataset.sse || !window.EventSource) return;
    var dirty = false;
    // never swap a form the player has started filling in
    ["input", "change"].forEach(function (kind) {
      document.addEventListener(kind, function (ev) {
        var box = document.getElementById("live");
        if (box && box.contains(ev.target)) dirty = true;
      });
    });
    // while the player types, only the parts marked data-live-part (message lists, status) are
    // replaced: a half-typed message or a chosen target survives the refresh
    function refreshParts() {
      fetch(window.location.pathname + window.location.search, {credentials: "same-origin"}).then(function (r) {
        return r.ok ? r.text() : null;
      }).then(function (html) {
        if (!html) return;
        var fresh = new DOMParser().parseFromString(html, "text/html");
        document.querySelectorAll("[data-live-part][id]").forEach(function (el) {
          var next = fresh.getElementById(el.id);
          if (next) el.replaceWith(document.importNode(next, true));
        });
        countdowns();
      });
    }
    // pushed updates (issue 13): the server sends new floors and group messages as HTML
    // fragments to append, and "reload" when something else this player sees changed
    var url = live.dataset.sse + (live.dataset.version ? "?v=" + encodeURIComponent(live.dataset.version) : "");
    var source = new EventSource(url);
    // the link was replaced (替补): stop listening and show the server's page for it
    source.addEventListener("gone", function () { source.close(); window.location.reload(); });
    function fragment(html) {
      var t = document.createElement("template");
      t.innerHTML = html;
      return t.content;
    }
    source.addEventListener("post", function (ev) {
      var thread = document.getElementById("thread");
      if (!thread) return;
      if (thread.dataset.append === "0") {  // an older page or another day: say so, append nothing
        var note = document.getElementById("new-posts");
        if (note) note.hidden = false;
        return;
      }
      var part = fragment(ev.data), first = part.firstElementChild;
      if (!first || (first.id && document.getElementById(first.id))) return;  // shown already
      var empty = thread.querySelector(":scope > p.muted");
      if (empty) empty.remove();
      thread.appendChild(part);
    });
    source.addEventListener("chat", function (ev) {
      var part = fragment(ev.data), first = part.firstElementChild;
      if (!first) return;
      var box = document.getElementById("chat-" + first.dataset.group);
      if (!box || box.querySelector('[data-n="' + first.dataset.n + '"]')) return;
      box.appendChild(part);
    });
    source.addEventListener("reload", function () {
      var box = document.getElementById("live") || live;
      var busy = document.activeElement && box.contains(document.activeElement) &&
        /TEXTAREA|INPUT|SELECT/.test(document.activeElement.tagName);
      // a text kept after a refusal (or typed without an input event) is never swapped away
      box.querySelectorAll("textarea:not([readonly])").forEach(function (t) {
        if (t.value !== t.defaultValue || (t.hasAttribute("data-keep") && t.value.trim())) busy = true;
      });
      if (busy || dirty) { refreshParts(); return; }
      htmx.ajax("GET", window.location.pathname + window.location.search,
        {target: "#live", select: "#live", swap: "outerHTML"});
    });
  });
})();
