<?php

namespace App\Jobs;

use GuzzleHttp\Client;
use Illuminate\Contracts\Queue\ShouldQueue;
use Illuminate\Foundation\Bus\Dispatchable;
use Illuminate\Queue\InteractsWithQueue;

// A queued webhook with a dynamic verb: the job's $tries is its retry layer.
class WebhookJob implements ShouldQueue
{
    use Dispatchable, InteractsWithQueue;

    public $tries = 5;

    public function handle()
    {
        $this->postData($this->subscription, []);
    }

    private function postData($subscription, $data)
    {
        $client = new Client(['headers' => ['Accept' => 'application/json']]);
        $verb = $subscription->rest_method ?? 'post';

        $response = $client->{$verb}($subscription->target_url, ['json' => $data]);
    }
}
