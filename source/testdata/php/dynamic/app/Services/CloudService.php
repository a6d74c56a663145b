<?php

namespace App\Services;

use GuzzleHttp\Client;
use GuzzleHttp\RequestOptions;
use Illuminate\Http\Client\RequestException;
use Illuminate\Support\Facades\Http;

// Dynamic verbs: the request method is a variable, the client one the reader knows.
class CloudService
{
    private string $baseUrl = 'https://api.cloud.example.test/v2';

    public function __construct(private string $token, private Repository $repo) {}

    // A Laravel chain ending in ->{$method}(…): its timeouts and retry(3) hold, the method is unknown.
    private function request(string $method, string $endpoint, array $data = []): array
    {
        $response = Http::withToken($this->token)
            ->acceptJson()
            ->timeout(30)
            ->connectTimeout(10)
            ->retry(3, function (int $attempt, \Exception $exception) {
                if ($exception instanceof RequestException) {
                    return 1000;
                }

                return $attempt * 100;
            }, throw: false)
            ->{$method}($this->baseUrl.$endpoint, $data);

        return $response->json();
    }

    // Laravel's default connect timeout under ->timeout(30); the verb as a bare variable.
    private function plain(string $verb, string $path)
    {
        return Http::withHeaders(['Accept' => 'application/json'])
            ->timeout(30)
            ->retry(3, fn (int $attempt) => $attempt * 100, throw: false)
            ->$verb('https://hooks.cloud.example.test'.$path);
    }

    // A Guzzle client without options: Guzzle's defaults, whatever the method.
    public function hook($subscription, array $data, array $headers)
    {
        $client = new Client(['headers' => $headers]);
        $verb = $subscription->rest_method ?? 'post';

        return $client->{$verb}($subscription->target_url, [
            RequestOptions::JSON => $data,
        ]);
    }

    // Request options still read after a dynamic verb; a fully qualified new.
    public function purchase(string $method, string $url)
    {
        $client = new \GuzzleHttp\Client(['connect_timeout' => 2]);

        return $client->$method($url, ['timeout' => 4]);
    }

    // Not calls: a dynamic method on objects that are no client.
    public function notCalls(string $method, string $field, $model)
    {
        $this->repo->{$method}($field);
        $this->{$method}($field);
        $model->$field();
        $response = Http::get('https://api.cloud.example.test/ping');
        $response->{$method}();

        return $model->{$field}->value;
    }
}
