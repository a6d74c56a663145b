import backoff
import requests
import tenacity
from requests.adapters import HTTPAdapter
from tenacity import retry, stop_after_attempt, stop_after_delay, wait_exponential, wait_random_exponential, retry_if_exception_type
from urllib3 import Retry


@retry(stop=stop_after_attempt(5), wait=wait_exponential(multiplier=1, min=2, max=30), retry=retry_if_exception_type((requests.ConnectionError, requests.Timeout)))
def tenacity_get():
    return requests.get("https://api.example.test/items", timeout=3)


@retry
def forever():
    return requests.post("https://api.example.test/orders", timeout=3)


@tenacity.retry(stop=(stop_after_attempt(3) | stop_after_delay(10)), wait=wait_random_exponential(max=8))
def both():
    return requests.get("https://api.example.test/items", timeout=3)


@backoff.on_exception(backoff.expo, requests.exceptions.RequestException, max_tries=8, max_time=60)
def with_backoff():
    return requests.get("https://api.example.test/items", timeout=3)


session = requests.Session()
session.mount("https://", HTTPAdapter(max_retries=Retry(total=2, status_forcelist=[502, 503], allowed_methods=["GET", "POST"])))


@backoff.on_exception(backoff.expo, requests.exceptions.ConnectionError, max_tries=3, jitter=None)
def layered():
    session.post("https://api.example.test/orders", timeout=3)
    session.get("https://api.example.test/items", timeout=3)


pool_retry = Retry(total=4, connect=0)
plain = requests.Session()
plain.mount("https://", HTTPAdapter(max_retries=pool_retry))


def post_default_methods():
    plain.post("https://api.example.test/orders", timeout=3)
    plain.put("https://api.example.test/orders/1", timeout=3)
