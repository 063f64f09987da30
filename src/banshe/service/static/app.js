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
    // the page's own address: after a refusal the browser shows the answer to a POST (…/post,
    // …/command), which cannot be fetched again; data-url names the page it is
    function pageUrl() {
      var box = document.getElementById("live") || live;
      var path = window.location.pathname;
      return box.dataset.url && path !== box.dataset.url ? box.dataset.url : path + window.location.search;
    }
    function refreshParts() {
      fetch(pageUrl(), {credentials: "same-origin"}).then(function (r) {
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
      showMine();
    });
    // after a post by fetch: bring its floor into view once it is on the page (by push or reload)
    var mine = null;
    function showMine() {
      var el = mine && document.querySelector('#thread [data-post="' + mine + '"]');
      if (!el) return;
      mine = null;
      el.scrollIntoView({block: "nearest"});
    }
    document.addEventListener("htmx:afterSwap", showMine);
    source.addEventListener("chat", function (ev) {
      var part = fragment(ev.data), first = part.firstElementChild;
      if (!first) return;
      var box = document.getElementById("chat-" + first.dataset.group);
      if (!box || box.querySelector('[data-n="' + first.dataset.n + '"]')) return;
      box.appendChild(part);
    });
    // a post or vote from this page goes by fetch while the stream is open (issue 26): the new
    // floor arrives by the push, so the page is not fetched again. A refusal, or no answer,
    // submits the form the ordinary way: the server's page shows the reason with the text kept
    // (a resend with the same form key is never stored twice).
    document.addEventListener("submit", function (ev) {
      var form = ev.target;
      if (ev.defaultPrevented || !form.hasAttribute || !form.hasAttribute("data-fetch")) return;
      if (!window.fetch || !window.URLSearchParams || source.readyState !== 1) return;
      ev.preventDefault();
      var button = ev.submitter;
      if (button) button.disabled = true;
      posting = true;
      var again = function () { posting = false; HTMLFormElement.prototype.submit.call(form); };
      fetch(form.action, {
        method: "POST", credentials: "same-origin", headers: {"Accept": "application/json"},
        body: new URLSearchParams(new FormData(form))
      }).then(function (r) {
        return r.ok ? r.json() : null;
      }).then(function (done) {
        if (!done || !done.ok) { again(); return; }
        posting = false;
        if (button) button.disabled = false;
        var thread = document.getElementById("thread");
        if (!thread || thread.dataset.append === "0") { window.location.assign(done.mine); return; }
        form.reset();
        form.querySelectorAll("textarea").forEach(function (t) {
          t.value = t.defaultValue = "";
          t.removeAttribute("data-keep");
        });
        form.elements.idem.value = done.idem;
        ["error", "replying", "post-error", "vote-error", "suggest"].forEach(function (id) {
          var el = document.getElementById(id);
          if (el) el.remove();
        });
        var reply = form.querySelector('input[name="reply_to"]');
        if (reply) reply.remove();
        var count = document.getElementById("post-count");
        if (count) count.textContent = done.post_count;
        var ok = document.getElementById("ok");
        if (!ok) {
          ok = document.createElement("div");
          ok.className = "ok";
          ok.id = "ok";
          ok.setAttribute("role", "status");
          var box = document.getElementById("live") || live;
          box.parentNode.insertBefore(ok, box);
        }
        ok.textContent = done.ok;
        dirty = false;  // what was typed has been posted
        mine = String(done.post);
        showMine();
        if (reloadAfterPost) { reloadAfterPost = false; reload(); }
      }, again);
    });
    var posting = false, reloadAfterPost = false;
    function reload() {
      if (posting) { reloadAfterPost = true; return; }  // after the post's answer: what was typed is gone
      var box = document.getElementById("live") || live;
      var busy = document.activeElement && box.contains(document.activeElement) &&
        /TEXTAREA|INPUT|SELECT/.test(document.activeElement.tagName);
      // a text kept after a refusal (or typed without an input event) is never swapped away
      box.querySelectorAll("textarea:not([readonly])").forEach(function (t) {
        if (t.value !== t.defaultValue || (t.hasAttribute("data-keep") && t.value.trim())) busy = true;
      });
      if (busy || dirty) { refreshParts(); return; }
      htmx.ajax("GET", pageUrl(),
        {target: "#live", select: "#live", swap: "outerHTML"});
    }
    source.addEventListener("reload", reload);
  });
})();
