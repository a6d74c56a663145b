// Node's fetch (undici): no total unless a signal says one.
const BASE = "https://api.example.com";

export async function plain(id) {
  return fetch(`https://api.example.com/items/${id}`);
}

export async function withTimeout() {
  return fetch(BASE + "/health", { signal: AbortSignal.timeout(5000) });
}

export async function withController(body, key) {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 2_500);
  try {
    return await fetch("https://pay.example.com/charge", {
      method: "post",
      headers: { "Idempotency-Key": key, "content-type": "application/json" },
      body: JSON.stringify(body),
      signal: controller.signal,
    });
  } finally {
    clearTimeout(timer);
  }
}

export async function fromCaller(url, signal) {
  return fetch(url, { method: "DELETE", signal });
}

export async function either(url, parent) {
  return globalThis.fetch(url, { signal: AbortSignal.any([parent, AbortSignal.timeout(3 * 1000)]) });
}

const opts = { method: "PUT", headers: { accept: "json" } };

export async function shared(url) {
  return fetch(url, opts);
}

export async function spread(url, extra) {
  return fetch(url, { ...extra, method: "PATCH" });
}

export async function reassigned(url, extra) {
  let init = { signal: AbortSignal.timeout(1000) };
  init = extra;
  return fetch(url, init);
}

export async function mutated(url) {
  const init = { method: "GET" };
  init.signal = AbortSignal.timeout(100);
  return fetch(url, init);
}

// A wrapper: its own signal after the caller's options wins; a timeout before them may not.
export async function wrapper(url, opts = {}) {
  await fetch(url, { ...opts, signal: AbortSignal.timeout(5000) });
  return fetch(url, { signal: AbortSignal.timeout(5000), ...opts });
}
