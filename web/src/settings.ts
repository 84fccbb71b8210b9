// The player's settings, kept in this browser: sound on or off, motion on or off. The
// default follows the system (`prefers-reduced-motion`); sound starts on. Sounds are
// made with Web Audio (no files): short tones per kind of moment.

export interface Prefs {
  sound: boolean;
  motion: boolean;
}

const STORE_KEY = "gamehub.prefs";

function systemReducesMotion(): boolean {
  return typeof matchMedia === "function" && matchMedia("(prefers-reduced-motion: reduce)").matches;
}

function load(): Prefs {
  const fallback: Prefs = { sound: true, motion: !systemReducesMotion() };
  try {
    const raw = localStorage.getItem(STORE_KEY);
    if (!raw) return fallback;
    const parsed = JSON.parse(raw) as Partial<Prefs>;
    return {
      sound: typeof parsed.sound === "boolean" ? parsed.sound : fallback.sound,
      motion: typeof parsed.motion === "boolean" ? parsed.motion : fallback.motion,
    };
  } catch {
    return fallback;
  }
}

let prefs: Prefs = typeof localStorage === "undefined" ? { sound: false, motion: true } : load();

/** The settings now. */
export function getPrefs(): Prefs {
  return { ...prefs };
}

/** Changes one setting, remembers it and applies it to the page. */
export function setPref<K extends keyof Prefs>(key: K, value: Prefs[K]): void {
  prefs = { ...prefs, [key]: value };
  try {
    localStorage.setItem(STORE_KEY, JSON.stringify(prefs));
  } catch {
    // private mode: the choice lasts for this page only
  }
  applyPrefs();
}

/** `<body data-motion="off">` turns animations and transitions off (base.css). */
export function applyPrefs(): void {
  if (typeof document !== "undefined") document.body.dataset.motion = prefs.motion ? "on" : "off";
}

/** The moments that make a sound. */
export type Sound = "stone" | "card" | "turn" | "win" | "lose" | "alert";

const TONES: Record<Sound, [number, number][]> = {
  // [frequency Hz, duration ms] in sequence
  stone: [[520, 45]],
  card: [[760, 35]],
  turn: [[660, 70], [880, 90]],
  win: [[523, 110], [659, 110], [784, 180]],
  lose: [[392, 150], [330, 220]],
  alert: [[300, 120], [300, 120]],
};

let audio: AudioContext | null = null;

/** Plays `kind`'s tones when sound is on; silent (never an error) where audio is not allowed. */
export function sound(kind: Sound): void {
  if (!prefs.sound || typeof AudioContext === "undefined") return;
  try {
    audio ??= new AudioContext();
    let at = audio.currentTime;
    for (const [freq, ms] of TONES[kind]) {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.08, at);
      gain.gain.exponentialRampToValueAtTime(0.001, at + ms / 1000);
      osc.connect(gain).connect(audio.destination);
      osc.start(at);
      osc.stop(at + ms / 1000);
      at += ms / 1000;
    }
  } catch {
    // no audio device, or the browser refused before a user gesture
  }
}
