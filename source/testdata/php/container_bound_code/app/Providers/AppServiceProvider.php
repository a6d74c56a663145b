<?php

namespace App\Providers;

use Illuminate\Support\ServiceProvider;

class AppServiceProvider extends ServiceProvider
{
    public function register(): void
    {
        $this->app->bind('GuzzleHttp\Client', fn ($app) => $app->make(ClientFactory::class)->build(config('http')));
    }
}
