<?php

namespace App\Services;

use Illuminate\Http\Client\ConnectionException;
use Illuminate\Http\Client\PendingRequest;
use Illuminate\Support\Facades\Http;

class GitHubService
{
    const API = 'https://api.github.test';

    public function defaults()
    {
        // Laravel's own bounds: 30 s total, 10 s connect.
        return Http::get(self::API . '/repos')->json();
    }

    public function explicit(string $key)
    {
        return Http::timeout(10)
            ->connectTimeout(3)
            ->retry(3, 100, fn ($e) => $e instanceof ConnectionException, throw: false)
            ->withHeaders(['Idempotency-Key' => $key, 'Accept' => 'application/json'])
            ->post('https://api.github.test/graphql', ['query' => '{ viewer { login } }']);
    }

    public function options()
    {
        return Http::withOptions(['timeout' => 4, 'connect_timeout' => 1])->acceptJson()->get('https://api.github.test/user');
    }

    public function computed()
    {
        return Http::acceptJson()->timeout(config('services.github.timeout'))->get('https://api.github.test/rate_limit');
    }

    public function schedule()
    {
        // An array of waits: count + 1 attempts, retrying every failed response (4xx too).
        return Http::retry([100, 200, 400])->put('https://api.github.test/repos/a/b/topics', ['names' => []]);
    }

    public function wrapped()
    {
        return $this->client()->patch('/repos/a/b', ['private' => true]);
    }

    private function client(): PendingRequest
    {
        return Http::baseUrl('https://api.github.test')->timeout(7)->withToken('t');
    }

    public function local()
    {
        $pending = Http::timeout(3);
        return $pending->send('DELETE', 'https://api.github.test/repos/a/b');
    }

    public function milliseconds()
    {
        return Http::timeout(5000)->get('https://api.github.test/slow');
    }

    public function macro()
    {
        return Http::github()->get('/user/repos');
    }

    public function notCalls()
    {
        // Route and Cache are no HTTP client; a response's json() is no call.
        Route::get('/x', fn () => 'x');
        Cache::get('k');
        return Http::get('https://api.github.test/a')->collect()->get('items');
    }
}
