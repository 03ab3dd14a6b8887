// Loads the viewer's WebAssembly; the app mounts itself (viewer/src/main.rs).
import init from "./pkg/viewer.js";
init().catch((e) => {
  const p = document.createElement("p");
  p.className = "error";
  p.textContent = "The viewer could not start: " + e;
  document.body.appendChild(p);
});
