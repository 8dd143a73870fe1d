/* claimcheck: a page renders each hover card once, at its end; show it beside the badge that is
   hovered or focused by moving it there, and keep it on the screen: inside its width, below the
   sticky header, and within 70% of its height (the card scrolls inside). It opens below the
   badge, or above it when there is more room there. Without this script the badge still links
   to the claim's row, and its aria-describedby names the card for screen readers. It also opens
   the claim's evidence block that the page's address names. */
(function () {
  "use strict";
  var MARGIN = 8;
  var CAP = 0.7;
  function headerBottom() {
    var header = document.querySelector(".md-header");
    return header ? Math.max(0, header.getBoundingClientRect().bottom) : 0;
  }
  function place(card, badge) {
    card.style.left = "";
    card.style.top = "";
    card.style.bottom = "";
    card.style.maxHeight = "";
    if (window.getComputedStyle(card).position === "fixed") { return; }  /* a phone's sheet */
    card.style.left = "0px";
    card.style.top = "";
    card.style.bottom = "";
    card.style.maxHeight = "";
    var box = card.getBoundingClientRect();
    if (box.width === 0) { return; }
    var overflow = box.right - (document.documentElement.clientWidth - MARGIN);
    if (overflow > 0) {
      card.style.left = -Math.min(overflow, Math.max(0, box.left - MARGIN)) + "px";
    }
    var anchor = badge.getBoundingClientRect();
    var screen = window.innerHeight;
    var below = screen - anchor.bottom - MARGIN;
    var above = anchor.top - headerBottom() - MARGIN;
    var room = below >= box.height || below >= above ? below : above;
    card.style.maxHeight = Math.max(48, Math.min(CAP * screen, room)) + "px";
    if (room === above && below < box.height) {
      card.style.top = "auto";
      card.style.bottom = "1.6em";
    }
  }
  function attach(event) {
    var cite = event.target && event.target.closest && event.target.closest(".cc-cite");
    if (!cite) { return; }
    var badge = cite.querySelector(".cc-badge[aria-describedby]");
    var card = badge && document.getElementById(badge.getAttribute("aria-describedby"));
    if (!card) { return; }
    if (card.parentNode !== cite) { cite.appendChild(card); }
    window.requestAnimationFrame(function () { place(card, badge); });
  }
  document.addEventListener("mouseover", attach, true);
  document.addEventListener("focusin", attach, true);
  /* A claim's full evidence is a collapsed block: open the one the address names, so a link
     from a claim's line, a hover card or another page lands on it open. */
  function openTarget() {
    var id = decodeURIComponent(window.location.hash.slice(1));
    var target = id && document.getElementById(id);
    if (target && target.tagName === "DETAILS" && !target.open) {
      target.open = true;
      target.scrollIntoView();
    }
  }
  window.addEventListener("hashchange", openTarget);
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", openTarget);
  } else {
    openTarget();
  }
})();
