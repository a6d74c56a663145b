<?php

namespace App\Providers;

use Illuminate\Support\Facades\Http;
use Illuminate\Support\ServiceProvider;

class MacroServiceProvider extends ServiceProvider
{
    public function boot(): void
    {
        Http::macro('github', function () {
            return Http::baseUrl('https://api.github.test')->timeout(12)->connectTimeout(2);
        });
    }
}
