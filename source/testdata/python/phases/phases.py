import aiohttp
import httpx
import urllib3

client = httpx.Client(timeout=httpx.Timeout(10, connect=5), base_url="https://api.example.test", transport=httpx.HTTPTransport(retries=2))
http = urllib3.PoolManager(timeout=urllib3.Timeout(connect=2.0, read=7.0), retries=False)
SESSION_TIMEOUT = aiohttp.ClientTimeout(total=30, sock_connect=3, sock_read=10)


def items():
    client.get("/items")
    client.get("/items", timeout=2)
    http.request("GET", "https://api.example.test/items")
    http.request("POST", "https://api.example.test/orders", timeout=1.5, retries=urllib3.Retry(3))


async def sessions():
    async with aiohttp.ClientSession(timeout=SESSION_TIMEOUT) as session:
        await session.get("https://api.example.test/items")
        await session.post("https://api.example.test/orders", timeout=aiohttp.ClientTimeout(total=5))


class Gateway:
    def __init__(self):
        self.client = httpx.AsyncClient(timeout=20.0)

    async def call(self):
        return await self.client.get("https://api.example.test/items")
