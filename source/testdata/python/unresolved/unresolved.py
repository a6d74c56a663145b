import os

import httpx
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
