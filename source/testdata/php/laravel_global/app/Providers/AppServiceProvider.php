<?php

namespace App\Providers;

use Illuminate\Support\Facades\Http;
use Illuminate\Support\ServiceProvider;

class AppServiceProvider extends ServiceProvider
{
    public function boot(): void
    {
        Http::globalOptions([
            'timeout' => 15,
            'connect_timeout' => 4,
        ]);
    }
}
