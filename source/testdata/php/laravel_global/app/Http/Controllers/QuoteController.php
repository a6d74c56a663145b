<?php

namespace App\Http\Controllers;

use Illuminate\Http\Request;
use Illuminate\Support\Facades\Http;

class QuoteController extends Controller
{
    public function show(Request $request)
    {
        // A user waits on this one: a request context, bounded by the global options.
        $quote = $this->fetchQuote($request->get('zip'));
        return view('quote', ['quote' => $quote]);
    }

    private function fetchQuote(string $zip)
    {
        return Http::timeout(2)->get("https://rates.example.test/quote/{$zip}")->json();
    }

    public function carriers()
    {
        return Http::get('https://rates.example.test/carriers');
    }
}
