/* claimcheck: a page renders each hover card once, at its end; show it beside the badge that is
   hovered or focused by moving it there. Without this script the badge still links to the
   claim's row, and its aria-describedby names the card for screen readers. */
(function () {
  "use strict";
  function attach(event) {
    var cite = event.target && event.target.closest && event.target.closest(".cc-cite");
    if (!cite) { return; }
    var badge = cite.querySelector(".cc-badge[aria-describedby]");
    var card = badge && document.getElementById(badge.getAttribute("aria-describedby"));
    if (card && card.parentNode !== cite) { cite.appendChild(card); }
  }
  document.addEventListener("mouseover", attach, true);
  document.addEventListener("focusin", attach, true);
})();
