import os

import httpx
import urllib3
import requests


def caller_session(session: requests.Session, url):
    return session.get(url)


def caller_client(client: httpx.Client):
    return client.get("https://api.example.test/items")


def passthrough(url, **kwargs):
    return requests.get(url, **kwargs)


def from_env(url):
    return requests.get(url, timeout=float(os.environ.get("TIMEOUT", "5")))


def maybe(session=None):
    session = session or requests.Session()
    return session.get("https://api.example.test/items", timeout=3)


def make_pool(proxy=None, **opts):
    if proxy:
        return urllib3.ProxyManager(proxy, **opts)
    return urllib3.PoolManager(**opts)


pool = make_pool(timeout=3)


def pooled():
    return pool.request("GET", "https://api.example.test/items")
