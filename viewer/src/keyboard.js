// The viewer with the keyboard. Each image pane takes focus (Tab); on a focused image the
// arrows move the image, Shift+arrows change the window (up/down the level, left/right the
// width), + and − zoom, Enter starts a length measurement at the image's centre whose end the
// arrows then move (Shift: further), Enter again records it and Esc drops it. These keys act
// only on a focused image. The single-key shortcuts (tools, presets, invert, reset, full screen)
// are the user's own or off (radreview/accounts/shortcuts.py, <body data-shortcuts>).
import * as tools from "@cornerstonejs/tools";

const STEP = 0.05; // of the pane's size (pan) or of the image's display range (window/level)
const NUDGE = [4, 20]; // a measurement's end: CSS pixels per arrow press, without and with Shift
const ARROWS = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
const GLOBAL = {
  window_level: (viewer) => viewer.choose("WindowLevel"), zoom: (viewer) => viewer.choose("Zoom"),
  pan: (viewer) => viewer.choose("Pan"), measure: (viewer) => viewer.choose("Length"),
  invert: (viewer) => viewer.invert(), reset: (viewer) => viewer.reset(),
  fullscreen: (viewer) => viewer.fullScreen(),
  preset_1: (viewer) => viewer.preset("1"), preset_2: (viewer) => viewer.preset("2"),
  preset_3: (viewer) => viewer.preset("3"), preset_4: (viewer) => viewer.preset("4"),
};

export function userKeys() {
  const value = document.body.dataset.shortcuts;
  if (!value || value === "off") return null;
  try { return JSON.parse(value); } catch (_) { return null; }
}

// Shift with a letter is another key (a capital; a screen reader's commands use them): letters
// act unshifted only, with Caps Lock or without. A sign typed with Shift ("?") is that sign.
const shiftedLetter = (event) => event.shiftKey && /\p{L}/u.test(event.key);

// The action of a single-key shortcut, or undefined.
export function shortcutAction(keys, event) {
  if (!keys || event.key.length !== 1 || shiftedLetter(event)) return undefined;
  const key = event.key.toLowerCase();
  const name = Object.keys(GLOBAL).find((action) => keys[action] === key);
  return name && GLOBAL[name];
}

const centreOf = (element) => [element.clientWidth / 2, element.clientHeight / 2];
const plus = (a, b) => a.map((value, i) => value + b[i]);
const minus = (a, b) => a.map((value, i) => value - b[i]);

// The image moves by (dx, dy) CSS pixels: the camera moves the other way.
function panBy(viewport, dx, dy) {
  const centre = centreOf(viewport.element);
  const shift = minus(viewport.canvasToWorld([centre[0] - dx, centre[1] - dy]),
                      viewport.canvasToWorld(centre));
  const camera = viewport.getCamera();
  viewport.setCamera({ focalPoint: plus(camera.focalPoint, shift),
                       position: plus(camera.position, shift) });
  viewport.render();
}

function windowBy(viewport, base, dWidth, dLevel) {
  const { lower, upper } = viewport.getProperties().voiRange;
  const span = base.upper - base.lower;
  const width = Math.max(span / 100, upper - lower + dWidth * span);
  const centre = (upper + lower) / 2 + dLevel * span;
  viewport.setProperties({ voiRange: { lower: centre - width / 2, upper: centre + width / 2 } });
  viewport.render();
}

export class KeyboardMeasure {
  constructor(viewer, say) {
    this.viewer = viewer;
    this.say = say;
    this.current = null; // {viewport, annotation, end: canvas point}
  }

  start(viewport) {
    const end = centreOf(viewport.element);
    const point = viewport.canvasToWorld(end);
    const annotation = tools.LengthTool.createAnnotationForViewport(viewport, {
      data: { handles: { points: [point, [...point]] } },
    });
    tools.annotation.state.addAnnotation(annotation, viewport.element);
    this.current = { viewport, annotation, end };
    this.render();
    this.say("Measuring from the image's centre: the arrows move the end, Enter records, Esc cancels.");
  }

  nudge(dx, dy, far) {
    const { viewport, annotation } = this.current;
    const step = NUDGE[far ? 1 : 0];
    this.current.end = [this.current.end[0] + dx * step, this.current.end[1] + dy * step];
    annotation.data.handles.points[1] = viewport.canvasToWorld(this.current.end);
    annotation.invalidated = true;
    this.render();
  }

  finish() {
    const { annotation } = this.current;
    this.current = null;
    annotation.highlighted = false;
    tools.annotation.state.triggerAnnotationCompleted(annotation);
    this.say("Measurement recorded.");
  }

  cancel() {
    const { viewport, annotation } = this.current;
    this.current = null;
    tools.annotation.state.removeAnnotation(annotation.annotationUID);
    tools.utilities.triggerAnnotationRenderForViewportIds([viewport.id]);
    this.viewer.listMeasurements();
    this.say("Measurement cancelled.");
  }

  render() {
    tools.utilities.triggerAnnotationRenderForViewportIds([this.current.viewport.id]);
  }
}

// Keys on one focused image pane; true when the key was the viewer's.
export function onImage(viewer, measure, viewport, event) {
  const arrow = ARROWS[event.key];
  if (measure.current && measure.current.viewport !== viewport) measure.cancel();
  if (measure.current) {
    if (arrow) measure.nudge(arrow[0], arrow[1], event.shiftKey);
    else if (event.key === "Enter") measure.finish();
    else if (event.key === "Escape") measure.cancel();
    else return false;
    return true;
  }
  if (arrow && event.shiftKey) {
    windowBy(viewport, viewer.defaults.get(viewport.id), arrow[0] * STEP * 2, -arrow[1] * STEP);
  } else if (arrow) {
    const size = Math.min(viewport.element.clientWidth, viewport.element.clientHeight) * STEP;
    panBy(viewport, arrow[0] * size, arrow[1] * size);
  } else if (event.key === "+" || event.key === "=") viewer.zoom(1.25);
  else if (event.key === "-") viewer.zoom(0.8);
  else if (event.key === "Enter") measure.start(viewport);
  else return false;
  return true;
}
