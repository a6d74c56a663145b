package defaults

import (
	"context"
	"net/http"
	"net/url"
	"strings"
)

func fetch() error {
	resp, err := http.Get("https://api.example.test/v1/items")
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

func submit() {
	_, _ = http.Post("https://api.example.test/v1/items", "application/json", strings.NewReader("{}"))
	_, _ = http.PostForm("https://api.example.test/v1/form", url.Values{})
}

func background() {
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodPut, "https://api.example.test/v1/items/1", nil)
	_, _ = http.DefaultClient.Do(req)
}

func ignored() {
	_, _ = http.Head("https://api.example.test/health") // patience:ignore PT001
}
