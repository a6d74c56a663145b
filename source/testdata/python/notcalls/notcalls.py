import os

config = {"timeout": 3}


class App:
    def get(self, path):
        return path


app = App()


@app.get("/items")
def handler():
    value = config.get("timeout")
    requests_count = os.environ.get("REQUESTS")
    return app.get("/x"), value, requests_count


text = """requests.get("https://api.example.test") is in a string"""
# requests.get("https://api.example.test") in a comment
