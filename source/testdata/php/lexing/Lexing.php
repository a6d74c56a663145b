<html>
<body>
<?php if ($x): ?>
  <p>Http::get('https://html.example.test/') is inline HTML, no call</p>
<?php endif; ?>
<?php

namespace App;

use Illuminate\Support\Facades\Http;

#[Attribute(Attribute::TARGET_METHOD)]
final class Lexing
{
    // Http::get('https://comment.example.test/') in a comment
    # Http::get('https://hash.example.test/') in a hash comment
    /* Http::get('https://block.example.test/') { in a block comment */

    #[Route('/x', methods: ['GET'])]
    public function strings(array $a): string
    {
        $s = 'Http::get(\'https://single.example.test/\') }';
        $d = "Http::get(\"https://double.example.test/\") {$a['k']} ${x} $a[k] {$this->x->y}";
        $h = <<<EOT
            Http::get('https://heredoc.example.test/') { {$a["x"]}
            EOT;
        $n = <<<'NOW'
          Http::get('https://nowdoc.example.test/') )
          NOW . 'tail';
        $b = `echo Http::get`;
        return $s . $d . $h . $n . $b;
    }

    public function after(): void
    {
        // The lexer is in step after all of the above: this call is read, at its own line.
        Http::timeout(1)?->get('https://after.example.test/');
    }
}
?>
trailing HTML
