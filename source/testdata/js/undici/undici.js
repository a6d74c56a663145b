const { request, Agent, setGlobalDispatcher } = require('undici');

setGlobalDispatcher(new Agent({ connect: { timeout: 5000 }, headersTimeout: 30000, bodyTimeout: 60000 }));

async function viaGlobal() {
  return fetch('https://api.example.com/v1');
}

async function viaRequest() {
  return request('https://api.example.com/v1', { method: 'POST', headersTimeout: 1000, bodyTimeout: 2000 });
}

async function ownAgent(url) {
  const agent = new Agent({ connect: { timeout: 100 }, headersTimeout: 0 });
  return fetch(url, { dispatcher: agent, signal: AbortSignal.timeout(9000) });
}

module.exports = { viaGlobal, viaRequest, ownAgent };
