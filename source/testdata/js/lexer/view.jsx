#!/usr/bin/env node
// JSX with text an apostrophe would break, nested templates, regex literals and division.
import React from 'react';

const re = /[/"'`]+\/(x)/g, half = 10 / 2 / 1;
const nested = `outer ${`inner ${"}"} ${a ? `deep` : '{'}`} end`;

export function View({ items }) {
  const onClick = async () => {
    await fetch(`https://widgets.example.com/${items.length / 2}`, { signal: AbortSignal.timeout(700) });
  };
  return (
    <div className="list" data-x='it"s'>
      Don't forget: {items.length} items (or {"}"})
      {items.map(i => <Item key={i.id} {...i} onClick={() => onClick(i)} />)}
      <>fragment's text</>
      {/* a comment } */}
    </div>
  );
}
