package context

import (
	"context"
	"net/http"
	"time"
)

func bounded(parent context.Context) error {
	ctx, cancel := context.WithTimeout(parent, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", "https://api.example.test/q", nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

func fromCaller(ctx context.Context) {
	req, _ := http.NewRequestWithContext(ctx, "GET", "https://api.example.test/r", nil)
	_, _ = http.DefaultClient.Do(req)
}

func todo() {
	req, _ := http.NewRequestWithContext(context.TODO(), "DELETE", "https://api.example.test/s", nil)
	_, _ = http.DefaultClient.Do(req)
}

func later() {
	req, _ := http.NewRequest("GET", "https://api.example.test/t", nil)
	ctx, cancel := context.WithTimeout(context.Background(), 750*time.Millisecond)
	defer cancel()
	req = req.WithContext(ctx)
	c := &http.Client{Timeout: 5 * time.Second}
	_, _ = c.Do(req)
}
