from .http import session
from .settings import TIMEOUT
import requests


def items():
    return session.get("https://api.example.test/items")


def direct():
    return requests.get("https://api.example.test/items", timeout=TIMEOUT)
