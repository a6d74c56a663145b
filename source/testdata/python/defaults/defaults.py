import requests
import requests as r
import httpx
import aiohttp
import urllib3
from requests import get
from httpx import AsyncClient

API = "https://api.example.test"
TIMEOUT = 10


def plain():
    requests.get("https://api.example.test/items")
    requests.post(f"{API}/orders", json={}, timeout=TIMEOUT)
    r.put("https://api.example.test/items/1", timeout=(3.05, 27))
    get(API + "/health", timeout=None)
    requests.request("PATCH", "https://api.example.test/items/1", timeout=5000)


def phases():
    httpx.get("https://api.example.test/items")
    with httpx.Client() as client:
        client.post("https://api.example.test/orders")


async def fetch():
    async with AsyncClient(timeout=None) as client:
        await client.get("https://api.example.test/items")
    async with aiohttp.ClientSession() as session:
        async with session.get("https://api.example.test/items") as resp:
            return await resp.text()


http = urllib3.PoolManager()


def pooled():
    return http.request("GET", "https://api.example.test/items")
