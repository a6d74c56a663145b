import axios from 'axios';

// A generic function type in a .tsx annotation: `<T>(…) => R` is a type, not a JSX element.
export const useInline: <T>(
  render: (props: T) => string,
  props: T & { id?: string }
) => Promise<{}> = (render, props) => {
  const label = props.id ? <span>(none)</span> : <b>{render(props)}</b>;
  return axios.get(`https://ui.example.com/${label}`, { timeout: 650 });
};
