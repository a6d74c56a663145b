import requests
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry

DEFAULT_TIMEOUT = 5


class TimeoutHTTPAdapter(HTTPAdapter):
    def __init__(self, *args, **kwargs):
        self.timeout = DEFAULT_TIMEOUT
        if "timeout" in kwargs:
            self.timeout = kwargs["timeout"]
            del kwargs["timeout"]
        super().__init__(*args, **kwargs)

    def send(self, request, **kwargs):
        timeout = kwargs.get("timeout")
        if timeout is None:
            kwargs["timeout"] = self.timeout
        return super().send(request, **kwargs)


retries = Retry(total=3, backoff_factor=0.5, status_forcelist=[429, 500, 502, 503, 504])
session = requests.Session()
session.mount("https://", TimeoutHTTPAdapter(timeout=2.5, max_retries=retries))
session.mount("http://", TimeoutHTTPAdapter(max_retries=retries))

plain = requests.Session()


def use_module_session():
    session.get("https://api.example.test/items")
    session.post("https://api.example.test/orders", headers={"Idempotency-Key": "k"})
    plain.get("https://api.example.test/items")


def local_session():
    with requests.Session() as s:
        s.mount("https://", HTTPAdapter(max_retries=2))
        s.get("https://api.example.test/items", timeout=4)


class TimeoutSession(requests.Session):
    def request(self, method, url, **kwargs):
        kwargs.setdefault("timeout", 7)
        return super().request(method, url, **kwargs)


def subclass():
    TimeoutSession().get("https://api.example.test/items")
    s = TimeoutSession()
    s.get("https://api.example.test/items", timeout=1)


def make_session():
    s = requests.Session()
    s.mount("https://", TimeoutHTTPAdapter(timeout=9))
    return s


factory = make_session()


def through_factory():
    factory.delete("https://api.example.test/items/1")


class ExternalClient:
    """Every call goes through here: a timeout of None is refused."""

    def __init__(self, base_url, timeout=10):
        if timeout is None:
            raise ValueError("ExternalClient refuses timeout=None")
        self.base_url = base_url
        self.timeout = timeout
        self.session = requests.Session()

    def get(self, path):
        return self.session.get(self.base_url + path, timeout=self.timeout)


def fetch(url, timeout=5):
    return requests.get(url, timeout=timeout)
