/** An anchor that navigates inside the console without reloading (a real href, so open-in-new-tab works). */
import type { ComponentChildren } from 'preact';
import { navigate } from '../router';

export function Link({ href, children, class: className, current }: { href: string; children: ComponentChildren; class?: string; current?: boolean }) {
  const onClick = (event: MouseEvent) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(href);
  };
  return (
    <a href={href} class={className} onClick={onClick} aria-current={current ? 'page' : undefined}>
      {children}
    </a>
  );
}
