// The review page: select sentences, keyboard shortcuts, the inline editor, and keeping the
// reviewer's place when htmx swaps in a fresh review region. Framework-free on purpose.
// Keyboard model (docs/review.md, "Keyboard and screen readers"): only the selected sentence is in the Tab order
// (a roving tabindex), so Tab goes from it straight to its panel's buttons; the arrows on a
// sentence move between flags; single-key shortcuts are the user's own (or off), from
// <body data-shortcuts> (radreview/accounts/shortcuts.py).
(() => {
  "use strict";

  // The user's keys: {action: key}, or null when single-key shortcuts are off.
  const shortcutKeys = (() => {
    const value = document.body.dataset.shortcuts;
    if (!value || value === "off") return null;
    try { return JSON.parse(value); } catch (_) { return null; }
  })();

  let selected = null; // index of the selected sentence (a string, as in data-index)
  let decidedAt = null; // index of the sentence the last decision request was about

  const region = () => document.getElementById("review");
  const sentenceEl = (index) => document.getElementById(`sentence-${index}`);
  const flagged = () => Array.from(document.querySelectorAll("#review .sent[data-flag]"));
  const openFlags = () => Array.from(document.querySelectorAll("#review .sent.flag-open"));
  const editing = () => document.querySelector("#review .sentence-editor:not([hidden])");

  // One sentence in the Tab order: the selected one, else the first flag (else the first).
  function rove(sent) {
    const all = document.querySelectorAll("#review .sent");
    all.forEach((el) => { el.tabIndex = -1; });
    const stop = sent || flagged()[0] || all[0];
    if (stop) stop.tabIndex = 0;
  }

  function select(index, { focus = true } = {}) {
    const sent = index === null ? null : sentenceEl(index);
    document.querySelectorAll("#review .sent.selected").forEach((el) => {
      el.classList.remove("selected");
      el.removeAttribute("aria-current");
    });
    rove(sent);
    document.querySelectorAll("#review .panel").forEach((panel) => { panel.hidden = true; });
    const empty = document.getElementById("panel-empty");
    if (!sent) {
      selected = null;
      if (empty) empty.hidden = false;
      return;
    }
    selected = String(index);
    sent.classList.add("selected");
    sent.setAttribute("aria-current", "true");
    const panel = document.getElementById(`panel-${index}`);
    if (panel) panel.hidden = false;
    if (empty) empty.hidden = true;
    if (focus) {
      sent.focus({ preventScroll: true });
      sent.scrollIntoView({ block: "nearest" });
    }
  }

  function move(step) {
    const list = flagged();
    if (!list.length) return;
    const at = list.findIndex((el) => el.dataset.index === selected);
    const next = at === -1 ? (step > 0 ? 0 : list.length - 1) : Math.min(list.length - 1, Math.max(0, at + step));
    select(list[next].dataset.index);
  }

  function nextOpenAfter(index) {
    const open = openFlags();
    if (!open.length) return index;
    const after = open.find((el) => Number(el.dataset.index) > Number(index));
    return (after || open[0]).dataset.index;
  }

  // htmx binds freshly swapped-in elements only when they settle (a few ms later); a key pressed
  // in that window would click an unbound button, so bind it now (htmx.process is idempotent).
  function activate(button) {
    if (!button || button.disabled) return;
    if (window.htmx) window.htmx.process(button);
    button.click();
  }

  function panelHas(action) {
    return selected !== null &&
      document.querySelector(`#panel-${selected} [data-action="${action}"]`) !== null;
  }

  function press(action) {
    if (selected === null) return;
    activate(document.querySelector(`#panel-${selected} [data-action="${action}"]`));
  }

  function openEditor(index) {
    const form = document.getElementById(`editor-${index}`);
    if (!form) return;
    closeEditors();
    select(index, { focus: false });
    sentenceEl(index)?.classList.add("being-edited");
    form.hidden = false;
    const area = form.querySelector("textarea");
    area.focus();
    area.setSelectionRange(area.value.length, area.value.length);
  }

  function closeEditors() {
    document.querySelectorAll("#review .sentence-editor").forEach((form) => {
      if (form.hidden) return;
      form.hidden = true;
      form.reset();
      sentenceEl(form.dataset.index)?.classList.remove("being-edited");
    });
  }

  function typingIn(target) {
    return target instanceof HTMLElement &&
      (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName));
  }

  document.addEventListener("keydown", (event) => {
    if (!region()) return;
    if (event.target instanceof HTMLTextAreaElement && event.target.closest(".sentence-editor")) {
      if (event.key === "Escape") {
        event.preventDefault();
        const index = event.target.closest(".sentence-editor").dataset.index;
        closeEditors();
        select(index);
      } else if (event.key === "Enter" && !event.shiftKey) {
        event.preventDefault();
        if (window.htmx) window.htmx.process(event.target.form);
        event.target.form.requestSubmit();
      }
      return;
    }
    if (typingIn(event.target) || event.ctrlKey || event.metaKey || event.altKey) return;
    const handler = arrowOn(event) || shortcut(event);
    if (handler) {
      event.preventDefault();
      handler();
    }
  });

  const ACTIONS = {
    next: () => move(1), previous: () => move(-1),
    // primary: what the panel proposes (its primary button says it); keep: keep the sentence.
    primary: () => press("primary"), keep: () => press(panelHas("reject") ? "reject" : "primary"),
    edit: () => { if (selected !== null) openEditor(selected); },
    undo: () => activate(document.getElementById("undo")),
  };

  // Arrows (not single characters: on whatever the shortcut setting) where the focus is on a
  // sentence or nowhere in particular; Enter on a sentence goes to its panel's first button.
  function arrowOn(event) {
    const onSentence = event.target instanceof Element && event.target.closest("#review .sent");
    if (!onSentence && event.target !== document.body) return null;
    if (["ArrowDown", "ArrowRight"].includes(event.key)) return ACTIONS.next;
    if (["ArrowUp", "ArrowLeft"].includes(event.key)) return ACTIONS.previous;
    if (event.key === "Enter" && onSentence) {
      return () => document.querySelector(`#panel-${onSentence.dataset.index} button`)?.focus();
    }
    return null;
  }

  // As in the viewer (viewer/src/keyboard.js): a letter with Shift is another key, not its
  // shortcut; a sign typed with Shift is that sign.
  const shiftedLetter = (event) => event.shiftKey && /\p{L}/u.test(event.key);

  function shortcut(event) {
    if (!shortcutKeys || event.key.length !== 1 || shiftedLetter(event)) return null;
    const key = event.key.toLowerCase();
    const action = Object.keys(ACTIONS).find((name) => shortcutKeys[name] === key);
    return action ? ACTIONS[action] : null;
  }

  document.addEventListener("click", (event) => {
    const target = event.target instanceof Element ? event.target : null;
    if (!target || !region()) return;
    const edit = target.closest("[data-action=edit]");
    if (edit) return openEditor(edit.dataset.index);
    if (target.closest("[data-cancel]")) {
      const index = target.closest(".sentence-editor").dataset.index;
      closeEditors();
      return select(index);
    }
    const related = target.closest("a.related");
    if (related) {
      event.preventDefault();
      return select(related.dataset.index);
    }
    const sent = target.closest("#review .sent");
    if (sent) select(sent.dataset.index, { focus: false });
  });

  document.addEventListener("focusin", (event) => {
    const sent = event.target instanceof Element && event.target.closest("#review .sent");
    if (sent && sent.dataset.index !== selected) select(sent.dataset.index, { focus: false });
  });

  // A conflict (409) or a refused action (422) still brings the up-to-date region and its message.
  document.addEventListener("htmx:beforeSwap", (event) => {
    const status = event.detail.xhr.status;
    if ((status === 409 || status === 422) && event.detail.target?.id === "review") {
      event.detail.shouldSwap = true;
      event.detail.isError = false;
    }
  });

  document.addEventListener("htmx:beforeRequest", (event) => {
    const elt = event.detail.elt;
    if (elt.id === "review-poll") {
      // Never replace the region under a reviewer who is typing.
      if (editing()) event.preventDefault();
      return;
    }
    if (!elt.closest || !elt.closest("#review")) return;
    const vals = elt.getAttribute("hx-vals");
    try {
      const parsed = vals ? JSON.parse(vals) : {};
      const sentence = parsed.sentence ?? elt.dataset.index;
      decidedAt = sentence !== undefined ? String(sentence) : null;
    } catch (_) {
      decidedAt = null;
    }
  });

  // After settling: htmx resets swapped elements' classes while it settles, which would wipe the
  // selection. (The region settles at once, "settle:0ms", so new buttons are live immediately.)
  // A decision's answer swaps only the parts it changed, out of band (HX-Reswap: none); htmx
  // then settles the region once and each swapped part once: act on the region's event only.
  document.addEventListener("htmx:afterSettle", (event) => {
    if (!(event.target instanceof Element) || event.target.id !== "review") return;
    const status = event.detail.xhr?.status;
    let index = selected;
    if (decidedAt !== null && status === 200) index = nextOpenAfter(decidedAt);
    decidedAt = null;
    closeEditors(); // as a whole region's swap would: an editor left open is closed
    select(index !== null && sentenceEl(index) ? index : null, { focus: index !== null });
  });

  // Where the report scrolls in a region of its own (the reading room: docs/review.md), show the
  // first flag in it on opening; the page itself is never scrolled away from its top.
  function reveal(sent) {
    for (let box = sent.parentElement; box && box !== document.body; box = box.parentElement) {
      if (!["auto", "scroll"].includes(getComputedStyle(box).overflowY)) continue;
      const area = box.getBoundingClientRect(), at = sent.getBoundingClientRect();
      if (at.top < area.top || at.bottom > area.bottom) box.scrollTop += at.top - area.top - area.height / 3;
      return;
    }
  }

  function start() {
    if (!region()) return;
    rove(null);
    const first = openFlags()[0] || flagged()[0];
    if (!first) return;
    select(first.dataset.index, { focus: false });
    reveal(first);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
