<?php

namespace App\Jobs;

use GuzzleHttp\Client as Guzzle;
use Illuminate\Contracts\Queue\ShouldQueue;

// handle()'s parameters are injected by the container too.
class SyncJob implements ShouldQueue
{
    public $tries = 2;

    public function handle(Guzzle $guzzle): void
    {
        $guzzle->post('https://sync.example.test/push', ['json' => []]);
    }
}
