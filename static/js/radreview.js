// Small page behaviours that htmx does not cover. Kept framework-free on purpose.
document.addEventListener("htmx:responseError", (event) => {
  const status = event.detail.xhr.status;
  const box = document.createElement("div");
  box.className = "error";
  box.setAttribute("role", "alert");
  box.textContent = status === 403 ? "You are not allowed to do that." : `The server answered ${status}; try again.`;
  document.getElementById("main")?.prepend(box);
});
