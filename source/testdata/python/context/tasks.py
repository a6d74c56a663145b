import requests
from celery import shared_task
from flask import Flask

app = Flask(__name__)
session = requests.Session()
session.headers.update({"Idempotency-Key": "from-the-session"})


@shared_task(autoretry_for=(requests.ConnectionError, requests.Timeout), max_retries=5, retry_backoff=True)
def charge(order):
    return requests.post("https://pay.example.test/charges", json=order, timeout=10)


@app.task(bind=True)
def plain_task(self):
    return requests.get("https://api.example.test/items", timeout=10)


@app.route("/items")
def items():
    return session.post("https://api.example.test/items", timeout=(1, 4))


def streams():
    with requests.session() as s:
        s.get("https://api.example.test/items")
    requests.Session().send(requests.Request("GET", "https://api.example.test/x").prepare(), timeout=2)
