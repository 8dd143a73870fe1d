/* claimcheck: a page renders each hover card once, at its end; show it beside the badge that is
   hovered or focused by moving it there, and keep it inside the screen. Without this script the
   badge still links to the claim's row, and its aria-describedby names the card for screen
   readers. */
(function () {
  "use strict";
  var MARGIN = 8;
  function place(card) {
    card.style.left = "0px";
    var box = card.getBoundingClientRect();
    if (box.width === 0) { return; }
    var overflow = box.right - (document.documentElement.clientWidth - MARGIN);
    if (overflow > 0) {
      card.style.left = -Math.min(overflow, Math.max(0, box.left - MARGIN)) + "px";
    }
  }
  function attach(event) {
    var cite = event.target && event.target.closest && event.target.closest(".cc-cite");
    if (!cite) { return; }
    var badge = cite.querySelector(".cc-badge[aria-describedby]");
    var card = badge && document.getElementById(badge.getAttribute("aria-describedby"));
    if (!card) { return; }
    if (card.parentNode !== cite) { cite.appendChild(card); }
    window.requestAnimationFrame(function () { place(card); });
  }
  document.addEventListener("mouseover", attach, true);
  document.addEventListener("focusin", attach, true);
})();
