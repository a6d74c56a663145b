// A wrapper every call goes through (the seeds' ExternalClient): its own signal wins.
export async function callApi(path, init = {}) {
  return fetch(`https://wrapped.example.com/v1${path}`, { ...init, signal: AbortSignal.timeout(4000) });
}

export async function useIt() {
  await callApi('/a');
  return callApi('/b', { method: 'POST' });
}
